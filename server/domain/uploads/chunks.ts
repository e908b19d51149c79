import { randomUUID } from 'node:crypto'
import { and, eq, isNull, lte, or } from 'drizzle-orm'
import { uploadSessions } from '#server/db/schema-photos'
import { recordUploadBytes } from '#server/http/metrics'
import type { Problem } from '#server/http/problem'
import { AppendError, BlobOffsetError } from '#server/storage/blob-store'
import type { UploadRuntime } from './runtime'
import { busy, ensureOpen, findSession, offsetMismatch, recordOffset, toSession, uploadProblem, type UploadSession } from '#server/domain/uploads/session'

/** How long a chunk writer's lease lasts without renewal, and how often a streaming chunk renews it. */
export const LEASE_MS = 15_000
const LEASE_RENEW_MS = 5_000

class LeaseLostError extends Error {
  override name = 'LeaseLostError'
}

/** The body, stopped as soon as the lease is known to be lost (another writer may have it now). */
async function* whileLeased(body: AsyncIterable<Uint8Array>, lost: () => boolean): AsyncGenerator<Uint8Array> {
  for await (const chunk of body) {
    if (lost()) throw new LeaseLostError('the upload lease was lost')
    yield chunk
  }
}

/**
 * PUT /api/uploads/{id}/chunk?offset=N. One writer per session, across instances: a short
 * transaction checks the session and takes its lease (an atomic UPDATE … WHERE the lease is free
 * or expired); the bytes stream outside any transaction, the lease renewed meanwhile; a last
 * transaction stores the new offset and releases the lease. A body cut short keeps what arrived
 * (the error is then rethrown); more than the chunk allows is refused with 413 after the allowed bytes.
 */
export async function receiveChunk(rt: UploadRuntime, id: string, offset: number, body: AsyncIterable<Uint8Array>, contentLength: number | undefined): Promise<UploadSession> {
  const token = randomUUID()
  // Anything thrown in here rolls the lease back with the rest.
  const { row, allowed } = await rt.run(async (ctx) => {
    const found = await findSession(ctx, id)
    ensureOpen(found, ctx.now)
    const [leased] = await ctx.tx
      .update(uploadSessions)
      .set({ leaseToken: token, leaseExpiresAt: new Date(ctx.now.getTime() + LEASE_MS) })
      .where(
        and(
          eq(uploadSessions.tenantId, ctx.actor.tenantId),
          eq(uploadSessions.id, found.id),
          eq(uploadSessions.state, 'open'),
          or(isNull(uploadSessions.leaseToken), lte(uploadSessions.leaseExpiresAt, ctx.now)),
        ),
      )
      .returning({ id: uploadSessions.id })
    if (!leased) throw busy(found.offset)
    const stored = (await rt.store.stat(found.stagingKey))?.size ?? 0
    if (stored > found.offset) {
      await recordOffset(ctx, found.id, stored)
      found.offset = stored
    }
    if (offset !== found.offset) throw offsetMismatch(found.offset)
    const room = Math.min(found.chunkSize, found.size - found.offset)
    if (contentLength !== undefined && contentLength > room) throw chunkTooLarge(found, room)
    return { row: found, allowed: room }
  })

  let lost = false
  let renewing: Promise<unknown> = Promise.resolve()
  const renewal = setInterval(() => {
    renewing = rt
      .run((ctx) =>
        ctx.tx
          .update(uploadSessions)
          .set({ leaseExpiresAt: new Date(ctx.now.getTime() + LEASE_MS) })
          .where(and(eq(uploadSessions.tenantId, ctx.actor.tenantId), eq(uploadSessions.id, row.id), eq(uploadSessions.leaseToken, token)))
          .returning({ id: uploadSessions.id }),
      )
      .then((renewed) => {
        if (renewed.length === 0) lost = true
      })
      .catch((error: unknown) => rt.warn({ err: error, sessionId: row.id }, 'an upload lease could not be renewed'))
  }, LEASE_RENEW_MS)
  renewal.unref()

  let stored: number
  let failure: unknown
  try {
    stored = (await rt.store.append(row.stagingKey, whileLeased(body, () => lost), offset, allowed)).size
  } catch (error) {
    if (error instanceof BlobOffsetError) stored = error.storedSize
    else if (error instanceof AppendError) stored = error.storedSize
    else {
      clearInterval(renewal)
      await renewing
      await releaseLease(rt, row.id, token)
      throw error
    }
    failure = error
  } finally {
    clearInterval(renewal)
  }
  await renewing
  if (!(failure instanceof BlobOffsetError)) recordUploadBytes(row.purpose, stored - offset)
  const session = await rt.run(async (ctx) => {
    const current = await findSession(ctx, id, { lock: true })
    await ctx.tx
      .update(uploadSessions)
      .set({ leaseToken: null, leaseExpiresAt: null })
      .where(and(eq(uploadSessions.tenantId, ctx.actor.tenantId), eq(uploadSessions.id, current.id), eq(uploadSessions.leaseToken, token)))
    if (current.state !== 'open') return { current, live: false }
    await recordOffset(ctx, current.id, stored)
    return { current: { ...current, offset: Math.max(current.offset, stored), updatedAt: ctx.now }, live: true, now: ctx.now }
  })
  if (!session.live) {
    // Aborted (or expired and purged) while the chunk streamed in: its bytes must not stay behind.
    await rt.store.delete(row.stagingKey)
    ensureOpen(session.current, new Date(0))
  }
  if (failure instanceof BlobOffsetError) throw offsetMismatch(stored)
  if (failure instanceof AppendError) {
    if (failure.reason === 'too-large') throw chunkTooLarge({ ...row, offset: stored }, allowed)
    if (failure.cause instanceof LeaseLostError) throw busy(stored)
    throw uploadProblem(400, 'Incomplete chunk', 'The chunk ended early; what arrived is kept.', 'KR_UPLOAD_INCOMPLETE', { expectedOffset: stored })
  }
  return toSession(session.current, session.now ?? new Date(0))
}

async function releaseLease(rt: UploadRuntime, id: string, token: string): Promise<void> {
  try {
    await rt.run((ctx) =>
      ctx.tx
        .update(uploadSessions)
        .set({ leaseToken: null, leaseExpiresAt: null })
        .where(and(eq(uploadSessions.tenantId, ctx.actor.tenantId), eq(uploadSessions.id, id), eq(uploadSessions.leaseToken, token))),
    )
  } catch (error) {
    // It expires on its own.
    rt.warn({ err: error, sessionId: id }, 'an upload lease could not be released')
  }
}

export function chunkTooLarge(row: { chunkSize: number; offset: number; size: number }, allowed: number): Problem {
  return uploadProblem(413, 'Chunk too large', `A chunk may be at most ${allowed} bytes here (chunk size ${row.chunkSize}, ${row.size - row.offset} bytes left).`, 'KR_UPLOAD_CHUNK_TOO_LARGE', {
    maxBytes: allowed,
    expectedOffset: row.offset,
  })
}

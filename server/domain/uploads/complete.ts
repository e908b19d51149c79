import { and, eq } from 'drizzle-orm'
import { uploadSessions } from '#server/db/schema-photos'
import { hashBlob } from '#server/storage/blob-store'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { UploadRuntime } from './runtime'
import { busy, ensureOpen, findSession, leaseHeld, recordOffset, uploadProblem, type SessionRow } from '#server/domain/uploads/session'

/**
 * The steps of complete that every purpose shares (docs/photos.md "Upload protocol", step 4): claim
 * the session (open → completing) once every byte has arrived and no chunk streams; hash the staged
 * bytes and check the checksum; fail the session (its bytes deleted) on a refusal, or put it back
 * to open on any other failure. What complete then makes is the finisher's: a photo
 * (complete-photo.ts) or a document revision (server/domain/documents/revision-complete.ts).
 */

/** What the staged file holds: its size, SHA-256 (hex) and first bytes. */
export type StagedFile = { size: number; sha256: string; head: Uint8Array }

/**
 * Claims the session for completing. A session completed before answers what `replay` finds for it
 * instead (a retry after a lost response), when it finds something.
 */
export async function claimSession<T>(
  rt: UploadRuntime,
  id: string,
  replay: (ctx: DomainContext, row: SessionRow) => Promise<T | undefined>,
): Promise<{ kind: 'replay'; made: T } | { kind: 'claimed'; row: SessionRow; tenantId: string }> {
  return rt.run(async (ctx) => {
    const row = await findSession(ctx, id, { lock: true })
    if (row.state === 'completed') {
      const made = await replay(ctx, row)
      if (made !== undefined) return { kind: 'replay' as const, made }
    }
    ensureOpen(row, ctx.now)
    if (leaseHeld(row, ctx.now)) throw busy(row.offset)
    const stored = (await rt.store.stat(row.stagingKey))?.size ?? 0
    if (stored > row.offset) {
      await recordOffset(ctx, row.id, stored)
      row.offset = stored
    }
    if (row.offset !== row.size) {
      throw uploadProblem(409, 'Upload incomplete', `${row.offset} of ${row.size} bytes have arrived.`, 'KR_UPLOAD_INCOMPLETE', { expectedOffset: row.offset })
    }
    await ctx.tx
      .update(uploadSessions)
      .set({ state: 'completing', updatedAt: ctx.now })
      .where(and(eq(uploadSessions.tenantId, ctx.actor.tenantId), eq(uploadSessions.id, row.id)))
    return { kind: 'claimed' as const, row, tenantId: ctx.actor.tenantId }
  })
}

/** Hashes the staged bytes; a checksum that does not match fails the session (422). */
export async function checkStaged(rt: UploadRuntime, row: SessionRow): Promise<StagedFile> {
  const { size, sha256, head } = await hashBlob(rt.store, row.stagingKey)
  if (size !== row.size) throw uploadProblem(409, 'Upload incomplete', `${size} of ${row.size} bytes have arrived.`, 'KR_UPLOAD_INCOMPLETE', { expectedOffset: size })
  if (row.checksum && row.checksum !== sha256) {
    await markFailed(rt, row, 'checksum')
    throw uploadProblem(422, 'Checksum mismatch', 'The bytes received do not match the checksum given: upload the file again.', 'KR_UPLOAD_CHECKSUM_MISMATCH')
  }
  return { size, sha256, head }
}

/** Inside the finisher's last transaction: the session must still be the one this complete claimed. */
export async function ensureStillCompleting(ctx: DomainContext, id: string): Promise<SessionRow> {
  const current = await findSession(ctx, id, { lock: true })
  if (current.state !== 'completing') ensureOpen(current, new Date(0))
  return current
}

/** Inside the finisher's last transaction, with what it made. */
export async function markCompleted(ctx: DomainContext, id: string, made: { photoId?: string } = {}): Promise<void> {
  await ctx.tx
    .update(uploadSessions)
    .set({ state: 'completed', ...made, completedAt: ctx.now, updatedAt: ctx.now })
    .where(and(eq(uploadSessions.tenantId, ctx.actor.tenantId), eq(uploadSessions.id, id)))
  await recordChange(ctx, 'UploadSession', id, 'Updated')
}

/** A refusal: the session fails with `reason` and its staged bytes go (upload again). */
export async function markFailed(rt: UploadRuntime, row: SessionRow, reason: string): Promise<void> {
  await rt.run(async (ctx) => {
    await ctx.tx
      .update(uploadSessions)
      .set({ state: 'failed', failureReason: reason, updatedAt: ctx.now })
      .where(and(eq(uploadSessions.tenantId, ctx.actor.tenantId), eq(uploadSessions.id, row.id)))
    await recordChange(ctx, 'UploadSession', row.id, 'Updated')
  })
  await rt.store.delete(row.stagingKey)
}

/** Any other failure: the session is open again, its bytes in staging, and complete may be retried. */
export async function reopen(rt: UploadRuntime, row: SessionRow): Promise<void> {
  await rt.run((ctx) =>
    ctx.tx
      .update(uploadSessions)
      .set({ state: 'open', updatedAt: ctx.now })
      .where(and(eq(uploadSessions.tenantId, ctx.actor.tenantId), eq(uploadSessions.id, row.id), eq(uploadSessions.state, 'completing'))),
  )
}

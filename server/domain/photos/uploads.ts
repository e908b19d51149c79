import { randomUUID } from 'node:crypto'
import { and, eq, isNull, lt, lte, or, sql } from 'drizzle-orm'
import { photos, uploadSessions } from '#server/db/schema-photos'
import { Problem, problems, type FieldErrors } from '#server/http/problem'
import { AppendError, BlobOffsetError, hashBlob } from '#server/storage/blob-store'
import { crashPoint } from './crash-point'
import { displayFileName } from './file-name'
import type { DomainContext } from '../reporting/context'
import { findItem, isUuid } from '../reporting/item-view'
import { ensure } from '../reporting/permissions'
import type { ImageType } from './images'
import { sniffImageType } from './images'
import {
  ALLOWED_TYPES,
  MAX_FILE_BYTES,
  deleteBlobs,
  photoColumns,
  photoKey,
  storeRenditions,
  toPhoto,
  tooLarge,
  typeProblem,
  UnreadableImageError,
  type Photo,
  type PhotoRuntime,
} from './photos'
import { lockPhotoOrder, nextSortOrder } from './order'
import { ensureQuota } from './quota'

/**
 * Resumable photo uploads (docs/photos.md "Upload protocol"), with the semantics of tus and the
 * IETF resumable-upload draft: a session per file; chunks only at the stored offset (409 with the
 * expected offset otherwise); the offset never goes back; a cut connection keeps what arrived;
 * complete checks size, checksum and the type read from the bytes. Bytes stream to the blob
 * store's staging area and are moved into place only when whole.
 */

export const CHUNK_BYTES = 8 * 1024 * 1024
export const SESSION_TTL_MS = 24 * 60 * 60_000

export type UploadState = 'open' | 'completing' | 'completed' | 'aborted' | 'expired' | 'failed'

export type UploadSession = {
  id: string
  itemId: string
  fileName: string
  contentType: string
  size: number
  offset: number
  chunkSize: number
  state: UploadState
  photoId: string | null
  failureReason: string | null
  createdAtUtc: string
  expiresAtUtc: string
  completedAtUtc: string | null
}

export type NewUpload = { fileName: string; size: number; contentType: string; checksum?: string | undefined }

const sessionColumns = {
  id: uploadSessions.id,
  itemId: uploadSessions.itemId,
  userId: uploadSessions.userId,
  fileName: uploadSessions.fileName,
  declaredType: uploadSessions.declaredType,
  size: uploadSessions.size,
  checksum: uploadSessions.checksum,
  chunkSize: uploadSessions.chunkSize,
  offset: uploadSessions.offset,
  state: uploadSessions.state,
  stagingKey: uploadSessions.stagingKey,
  leaseToken: uploadSessions.leaseToken,
  leaseExpiresAt: uploadSessions.leaseExpiresAt,
  photoId: uploadSessions.photoId,
  failureReason: uploadSessions.failureReason,
  expiresAt: uploadSessions.expiresAt,
  completedAt: uploadSessions.completedAt,
  createdAt: uploadSessions.createdAt,
}
type SessionRow = {
  id: string
  itemId: string
  userId: string | null
  fileName: string
  declaredType: string
  size: number
  checksum: string | null
  chunkSize: number
  offset: number
  state: string
  stagingKey: string
  leaseToken: string | null
  leaseExpiresAt: Date | null
  photoId: string | null
  failureReason: string | null
  expiresAt: Date
  completedAt: Date | null
  createdAt: Date
}

function isExpired(row: SessionRow, now: Date): boolean {
  return (row.state === 'open' || row.state === 'completing') && row.expiresAt.getTime() <= now.getTime()
}

function toSession(row: SessionRow, now: Date): UploadSession {
  return {
    id: row.id,
    itemId: row.itemId,
    fileName: row.fileName,
    contentType: row.declaredType,
    size: row.size,
    offset: row.offset,
    chunkSize: row.chunkSize,
    state: (isExpired(row, now) ? 'expired' : row.state) as UploadState,
    photoId: row.photoId,
    failureReason: row.failureReason,
    createdAtUtc: row.createdAt.toISOString(),
    expiresAtUtc: row.expiresAt.toISOString(),
    completedAtUtc: row.completedAt?.toISOString() ?? null,
  }
}

const HEX = /^[0-9a-f]{64}$/i
const BASE64 = /^[A-Za-z0-9+/_-]{43}=?$/

/** A SHA-256 as 64 hex digits or base64(url), optionally prefixed `sha256:` or `sha-256=`: lower-case hex. */
export function normaliseChecksum(value: string): string | undefined {
  const bare = value.trim().replace(/^sha-?256[:=]/i, '')
  if (HEX.test(bare)) return bare.toLowerCase()
  if (BASE64.test(bare)) {
    const bytes = Buffer.from(bare.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
    return bytes.length === 32 ? bytes.toString('hex') : undefined
  }
  return undefined
}

function uploadProblem(status: number, title: string, detail: string, code: string, extensions?: Record<string, unknown>): Problem {
  return new Problem({ status, title, detail, code, extensions })
}

const notFound = () => new Problem(problems.notFound('The upload session was not found.'))

/** The actor's own session (another member's, or another tenant's, reads as 404). */
async function findSession(ctx: DomainContext, id: string, options: { lock?: boolean } = {}): Promise<SessionRow> {
  if (!isUuid(id)) throw notFound()
  const query = ctx.tx
    .select(sessionColumns)
    .from(uploadSessions)
    .where(and(eq(uploadSessions.tenantId, ctx.actor.tenantId), eq(uploadSessions.id, id), eq(uploadSessions.userId, ctx.actor.userId)))
    .limit(1)
  const [row] = options.lock ? await query.for('update') : await query
  if (!row) throw notFound()
  return row
}

function ensureOpen(row: SessionRow, now: Date): void {
  if (isExpired(row, now) || row.state === 'expired') {
    throw uploadProblem(410, 'Upload expired', 'The upload session has expired; start a new one.', 'KR_UPLOAD_EXPIRED', { expiresAtUtc: row.expiresAt.toISOString() })
  }
  if (row.state !== 'open') {
    throw uploadProblem(409, 'Conflict', `The upload session is ${row.state}: it takes no more chunks.`, 'KR_UPLOAD_STATE', { state: row.state })
  }
}

function offsetMismatch(expected: number): Problem {
  return uploadProblem(409, 'Conflict', `The next chunk must start at offset ${expected}.`, 'KR_UPLOAD_OFFSET_MISMATCH', { expectedOffset: expected })
}

/** Moves the stored offset forward to what the staging blob really holds (never back). */
async function recordOffset(ctx: DomainContext, id: string, stored: number): Promise<void> {
  await ctx.tx
    .update(uploadSessions)
    .set({ offset: stored, updatedAt: ctx.now })
    .where(and(eq(uploadSessions.tenantId, ctx.actor.tenantId), eq(uploadSessions.id, id), lt(uploadSessions.offset, stored)))
}

/** POST /api/items/{itemId}/uploads. */
export async function createUpload(ctx: DomainContext, itemId: string, input: NewUpload): Promise<UploadSession> {
  const item = await findItem(ctx, itemId)
  ensure(ctx.actor, 'item.respond')
  const errors: FieldErrors = {}
  const checksum = input.checksum === undefined ? undefined : normaliseChecksum(input.checksum)
  if (input.checksum !== undefined && checksum === undefined) errors.checksum = ['The checksum must be a SHA-256, as 64 hex digits or base64.']
  // Kept as sent, but PostgreSQL text cannot hold NUL.
  if (input.fileName.includes('\u0000')) errors.fileName = ['The file name may not contain NUL characters.']
  if (Object.keys(errors).length > 0) throw new Problem(problems.badRequest('Some fields are not valid.', errors))
  if (input.size > MAX_FILE_BYTES) throw tooLarge(input.size)
  if (!(ALLOWED_TYPES as readonly string[]).includes(input.contentType)) throw typeProblem(`${input.contentType} is not a photo type this portal takes.`)
  await ensureQuota(ctx, input.size)

  const id = randomUUID()
  const [row] = await ctx.tx
    .insert(uploadSessions)
    .values({
      tenantId: ctx.actor.tenantId,
      id,
      itemId: item.id,
      userId: ctx.actor.userId,
      fileName: input.fileName,
      declaredType: input.contentType,
      size: input.size,
      checksum: checksum ?? null,
      chunkSize: CHUNK_BYTES,
      stagingKey: `staging/${ctx.actor.tenantId}/upload-${id}`,
      expiresAt: new Date(ctx.now.getTime() + SESSION_TTL_MS),
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
    .returning(sessionColumns)
  if (!row) throw new Error('upload session not stored')
  return toSession(row, ctx.now)
}

/** GET /api/uploads/{id}: the offset to resume from (the staging blob is the truth). */
export async function getUpload(rt: PhotoRuntime, id: string): Promise<UploadSession> {
  return rt.run(async (ctx) => {
    const row = await findSession(ctx, id)
    if (row.state === 'open') {
      const stored = (await rt.store.stat(row.stagingKey))?.size ?? 0
      if (stored > row.offset) {
        await recordOffset(ctx, row.id, stored)
        row.offset = stored
      }
    }
    return toSession(row, ctx.now)
  })
}

/** How long a chunk writer's lease lasts without renewal, and how often a streaming chunk renews it. */
export const LEASE_MS = 60_000
const LEASE_RENEW_MS = 20_000

function busy(expectedOffset: number): Problem {
  return uploadProblem(409, 'Conflict', 'Another chunk of this upload is being received.', 'KR_UPLOAD_BUSY', { expectedOffset })
}

function leaseHeld(row: { leaseToken: string | null; leaseExpiresAt: Date | null }, now: Date): boolean {
  return row.leaseToken !== null && row.leaseExpiresAt !== null && row.leaseExpiresAt.getTime() > now.getTime()
}

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
export async function receiveChunk(rt: PhotoRuntime, id: string, offset: number, body: AsyncIterable<Uint8Array>, contentLength: number | undefined): Promise<UploadSession> {
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

async function releaseLease(rt: PhotoRuntime, id: string, token: string): Promise<void> {
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

function chunkTooLarge(row: { chunkSize: number; offset: number; size: number }, allowed: number): Problem {
  return uploadProblem(413, 'Chunk too large', `A chunk may be at most ${allowed} bytes here (chunk size ${row.chunkSize}, ${row.size - row.offset} bytes left).`, 'KR_UPLOAD_CHUNK_TOO_LARGE', {
    maxBytes: allowed,
    expectedOffset: row.offset,
  })
}

async function markFailed(rt: PhotoRuntime, row: SessionRow, reason: string): Promise<void> {
  await rt.run((ctx) =>
    ctx.tx
      .update(uploadSessions)
      .set({ state: 'failed', failureReason: reason, updatedAt: ctx.now })
      .where(and(eq(uploadSessions.tenantId, ctx.actor.tenantId), eq(uploadSessions.id, row.id))),
  )
  await rt.store.delete(row.stagingKey)
}

async function reopen(rt: PhotoRuntime, row: SessionRow): Promise<void> {
  await rt.run((ctx) =>
    ctx.tx
      .update(uploadSessions)
      .set({ state: 'open', updatedAt: ctx.now })
      .where(and(eq(uploadSessions.tenantId, ctx.actor.tenantId), eq(uploadSessions.id, row.id), eq(uploadSessions.state, 'completing'))),
  )
}

/**
 * POST /api/uploads/{id}/complete → the Photo. Claims the session (open → completing), checks the
 * size, the checksum and the type read from the bytes, moves the file into place, makes the
 * renditions and stores the photo. Completing a completed session again answers its photo, so a
 * retry after a lost response is safe (`replayed`).
 */
export async function completeUpload(rt: PhotoRuntime, id: string): Promise<{ photo: Photo; replayed: boolean }> {
  const claimed = await rt.run(async (ctx) => {
    const row = await findSession(ctx, id, { lock: true })
    if (row.state === 'completed' && row.photoId) {
      const [photo] = await ctx.tx
        .select(photoColumns)
        .from(photos)
        .where(and(eq(photos.tenantId, ctx.actor.tenantId), eq(photos.id, row.photoId)))
        .limit(1)
      if (photo) return { kind: 'replay' as const, photo: await toPhoto(ctx, photo) }
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
  if (claimed.kind === 'replay') return { photo: claimed.photo, replayed: true }
  const { row, tenantId } = claimed

  const made: string[] = []
  let originalKey: string | undefined
  try {
    const { size, sha256, head } = await hashBlob(rt.store, row.stagingKey)
    if (size !== row.size) throw uploadProblem(409, 'Upload incomplete', `${size} of ${row.size} bytes have arrived.`, 'KR_UPLOAD_INCOMPLETE', { expectedOffset: size })
    if (row.checksum && row.checksum !== sha256) {
      await markFailed(rt, row, 'checksum')
      throw uploadProblem(422, 'Checksum mismatch', 'The bytes received do not match the checksum given: upload the file again.', 'KR_UPLOAD_CHECKSUM_MISMATCH')
    }
    const type: ImageType | undefined = sniffImageType(head.subarray(0, 64))
    if (!type) {
      await markFailed(rt, row, 'type')
      throw typeProblem()
    }
    const photoId = randomUUID()
    originalKey = photoKey(tenantId, photoId, 'original', sha256)
    await rt.store.move(row.stagingKey, originalKey)
    crashPoint('photo-complete:after-move')
    let renditions
    try {
      renditions = await storeRenditions(rt.store, originalKey, type, (name, sha) => photoKey(tenantId, photoId, name, sha))
    } catch (error) {
      if (!(error instanceof UnreadableImageError)) throw error
      await rt.store.move(originalKey, row.stagingKey)
      originalKey = undefined
      await markFailed(rt, row, 'unreadable')
      throw typeProblem('The file could not be read as an image.')
    }
    if (renditions.displayKey) made.push(renditions.displayKey)
    if (renditions.thumbnailKey) made.push(renditions.thumbnailKey)
    const stored = originalKey
    const photo = await rt.run(async (ctx) => {
      const current = await findSession(ctx, id, { lock: true })
      if (current.state !== 'completing') ensureOpen(current, new Date(0))
      const item = await findItem(ctx, row.itemId)
      await ensureQuota(ctx, size, { exceptSessionId: row.id })
      await lockPhotoOrder(ctx, item.id)
      const [inserted] = await ctx.tx
        .insert(photos)
        .values({
          tenantId,
          id: photoId,
          itemId: item.id,
          uploadedBy: ctx.actor.userId,
          fileName: row.fileName,
          displayName: displayFileName(row.fileName),
          contentType: type,
          sizeBytes: size,
          width: renditions.width,
          height: renditions.height,
          sha256,
          sortOrder: await nextSortOrder(ctx, item.id),
          originalKey: stored,
          displayKey: renditions.displayKey,
          thumbnailKey: renditions.thumbnailKey,
          createdAt: ctx.now,
          updatedAt: ctx.now,
        })
        .returning(photoColumns)
      if (!inserted) throw new Error('photo not stored')
      await ctx.tx
        .update(uploadSessions)
        .set({ state: 'completed', photoId, completedAt: ctx.now, updatedAt: ctx.now })
        .where(and(eq(uploadSessions.tenantId, tenantId), eq(uploadSessions.id, row.id)))
      return toPhoto(ctx, inserted)
    })
    return { photo, replayed: false }
  } catch (error) {
    // Anything but a refusal that failed the session leaves it open, the bytes back in staging.
    await deleteBlobs(rt, made)
    if (originalKey) {
      try {
        await rt.store.move(originalKey, row.stagingKey)
      } catch (moveError) {
        rt.warn({ err: moveError, key: originalKey }, 'an upload could not be put back in staging')
      }
    }
    await reopen(rt, row)
    throw error
  }
}

/** DELETE /api/uploads/{id}: aborts the upload and frees its staged bytes. */
export async function abortUpload(rt: PhotoRuntime, id: string): Promise<void> {
  const row = await rt.run(async (ctx) => {
    const found = await findSession(ctx, id, { lock: true })
    if (found.state === 'completed' || found.state === 'completing') {
      throw uploadProblem(409, 'Conflict', `The upload session is ${found.state}: it can no longer be aborted.`, 'KR_UPLOAD_STATE', { state: found.state })
    }
    await ctx.tx
      .update(uploadSessions)
      .set({ state: found.state === 'open' ? 'aborted' : found.state, updatedAt: ctx.now })
      .where(and(eq(uploadSessions.tenantId, ctx.actor.tenantId), eq(uploadSessions.id, found.id)))
    return found
  })
  await rt.store.delete(row.stagingKey)
}

/** Expired sessions of the tenant that still may hold staged bytes: for the purge job. */
export async function expireSessions(ctx: DomainContext, limit: number): Promise<string[]> {
  const rows = await ctx.tx
    .update(uploadSessions)
    .set({ state: 'expired', updatedAt: ctx.now })
    .where(
      and(
        eq(uploadSessions.tenantId, ctx.actor.tenantId),
        sql`${uploadSessions.id} in (select id from upload_sessions where tenant_id = ${ctx.actor.tenantId} and state in ('open', 'completing') and expires_at <= ${ctx.now.toISOString()} limit ${limit} for update skip locked)`,
      ),
    )
    .returning({ stagingKey: uploadSessions.stagingKey })
  return rows.map((r) => r.stagingKey)
}


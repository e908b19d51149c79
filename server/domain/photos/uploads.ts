import { announcePhotosChanged } from './announce'
import { randomUUID } from 'node:crypto'
import { and, eq, sql } from 'drizzle-orm'
import { photos, uploadSessions } from '#server/db/schema-photos'
import { Problem, problems, type FieldErrors } from '#server/http/problem'
import { hashBlob } from '#server/storage/blob-store'
import { crashPoint } from './crash-point'
import { displayFileName } from './file-name'
import type { DomainContext } from '../reporting/context'
import { findItem } from '../reporting/item-view'
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
import {
  busy,
  CHUNK_BYTES,
  ensureOpen,
  findSession,
  leaseHeld,
  normaliseChecksum,
  recordOffset,
  SESSION_TTL_MS,
  sessionColumns,
  toSession,
  uploadProblem,
  type NewUpload,
  type SessionRow,
  type UploadSession,
} from './upload-session'

// The Upload session JSON's type, where callers of these functions look for it.
export type { UploadSession, UploadState } from './upload-session'

/**
 * Resumable photo uploads (docs/photos.md "Upload protocol"), with the semantics of tus and the
 * IETF resumable-upload draft: a session per file; chunks only at the stored offset (409 with the
 * expected offset otherwise); the offset never goes back; a cut connection keeps what arrived;
 * complete checks size, checksum and the type read from the bytes. Bytes stream to the blob
 * store's staging area and are moved into place only when whole. Chunks: chunks.ts; the session
 * row and its checks: upload-session.ts.
 */

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
      await announcePhotosChanged(ctx, item.id)
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


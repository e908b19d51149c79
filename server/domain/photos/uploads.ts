import { and, eq, sql } from 'drizzle-orm'
import { uploadSessions } from '#server/db/schema-photos'
import { maxPhotoBytesIn } from '#server/domain/config/effective'
import { Problem, problems } from '#server/http/problem'
import type { Revision } from '~/lib/documents/types'
import { finishRevision, replayRevision } from '../documents/revision-complete'
import type { SupportAttachment } from '../admin/support'
import { finishSupport, replaySupport } from '../admin/support-attachments'
import { recordChange } from '../reporting/change-log'
import type { DomainContext } from '../reporting/context'
import { findItem } from '../reporting/item-view'
import { ensure } from '../reporting/permissions'
import { finishPhoto, replayPhoto } from './complete-photo'
import { ALLOWED_TYPES, MAX_FILE_BYTES, tooLarge, typeProblem, type Photo, type PhotoRuntime } from './photos'
import { ensureQuota } from './quota'
import { claimSession } from './upload-complete'
import { checkNewUpload, findSession, insertSession, recordOffset, toSession, uploadProblem, type NewUpload, type SessionRow, type UploadSession } from './upload-session'

// The Upload session JSON's type, where callers of these functions look for it.
export type { UploadPurpose, UploadSession, UploadState } from './upload-session'

/**
 * Resumable uploads (docs/photos.md "Upload protocol"), with the semantics of tus and the
 * IETF resumable-upload draft: a session per file; chunks only at the stored offset (409 with the
 * expected offset otherwise); the offset never goes back; a cut connection keeps what arrived;
 * complete checks size, checksum and the type read from the bytes. Bytes stream to the blob
 * store's staging area and are moved into place only when whole. Chunks: chunks.ts; the session
 * row and its checks: upload-session.ts; complete's shared steps: upload-complete.ts. Photo
 * sessions start here; revision sessions in server/domain/documents/revisions.ts.
 */

/** POST /api/items/{itemId}/uploads. */
export async function createUpload(ctx: DomainContext, itemId: string, input: NewUpload): Promise<UploadSession> {
  const item = await findItem(ctx, itemId)
  ensure(ctx.actor, 'item.respond')
  const { checksum, errors } = checkNewUpload(input)
  if (Object.keys(errors).length > 0) throw new Problem(problems.badRequest('Some fields are not valid.', errors))
  if (input.size > MAX_FILE_BYTES) throw tooLarge(input.size)
  const orgMaxBytes = await maxPhotoBytesIn(ctx.tx, ctx.actor.tenantId)
  if (input.size > orgMaxBytes) throw tooLarge(input.size, orgMaxBytes)
  if (!(ALLOWED_TYPES as readonly string[]).includes(input.contentType)) throw typeProblem(`${input.contentType} is not a photo type this portal takes.`)
  await ensureQuota(ctx, input.size)
  return insertSession(ctx, { purpose: 'photo', itemId: item.id }, input, checksum)
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

/** What completing a session made: a photo, or a document revision; `replayed` when completed before. */
export type Completed =
  | { purpose: 'photo'; photo: Photo; replayed: boolean }
  | { purpose: 'revision'; revision: Revision; replayed: boolean }
  | { purpose: 'support'; attachment: SupportAttachment; replayed: boolean }

async function replayCompleted(ctx: DomainContext, row: SessionRow): Promise<Completed | undefined> {
  if (row.purpose === 'revision') {
    const revision = await replayRevision(ctx, row)
    return revision && { purpose: 'revision', revision, replayed: true }
  }
  if (row.purpose === 'support') {
    const attachment = await replaySupport(ctx, row)
    return attachment && { purpose: 'support', attachment, replayed: true }
  }
  const photo = await replayPhoto(ctx, row)
  return photo && { purpose: 'photo', photo, replayed: true }
}

/**
 * POST /api/uploads/{id}/complete. Claims the session (open → completing) once every byte is in,
 * then the session's purpose decides what is made: a photo (complete-photo.ts), a document
 * revision (server/domain/documents/revision-complete.ts) or a support ticket's attachment
 * (server/domain/admin/support-attachments.ts). Completing a completed session again
 * answers what it made, so a retry after a lost response is safe (`replayed`).
 */
export async function completeUpload(rt: PhotoRuntime, id: string): Promise<Completed> {
  const claimed = await claimSession(rt, id, replayCompleted)
  if (claimed.kind === 'replay') return claimed.made
  const { row, tenantId } = claimed
  if (row.purpose === 'revision') return { purpose: 'revision', revision: await finishRevision(rt, row, tenantId), replayed: false }
  if (row.purpose === 'support') return { purpose: 'support', attachment: await finishSupport(rt, row, tenantId), replayed: false }
  return { purpose: 'photo', photo: await finishPhoto(rt, row, tenantId), replayed: false }
}

/** DELETE /api/uploads/{id}: aborts the upload and frees its staged bytes. */
export async function abortUpload(rt: PhotoRuntime, id: string): Promise<void> {
  await abortSession(rt, (ctx) => findSession(ctx, id, { lock: true }))
}

/**
 * Aborts the session `find` answers (read FOR UPDATE): the owner's DELETE above, and an
 * administrator's (server/domain/admin/uploads.ts). Refused once completing or completed; an open
 * session becomes aborted; then its staged bytes go. `then` runs in the same transaction, with the
 * session as it was, to record what the caller must (audit, change log). Answers that row.
 */
export async function abortSession(
  rt: PhotoRuntime,
  find: (ctx: DomainContext) => Promise<SessionRow>,
  then?: (ctx: DomainContext, before: SessionRow) => Promise<void>,
): Promise<SessionRow> {
  const row = await rt.run(async (ctx) => {
    const found = await find(ctx)
    if (found.state === 'completed' || found.state === 'completing') {
      throw uploadProblem(409, 'Conflict', `The upload session is ${found.state}: it can no longer be aborted.`, 'KR_UPLOAD_STATE', { state: found.state })
    }
    await ctx.tx
      .update(uploadSessions)
      .set({ state: found.state === 'open' ? 'aborted' : found.state, updatedAt: ctx.now })
      .where(and(eq(uploadSessions.tenantId, ctx.actor.tenantId), eq(uploadSessions.id, found.id)))
    if (found.state === 'open') await recordChange(ctx, 'UploadSession', found.id, 'Updated')
    await then?.(ctx, found)
    return found
  })
  await rt.store.delete(row.stagingKey)
  return row
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

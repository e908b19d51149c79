import { and, eq, sql } from 'drizzle-orm'
import { uploadSessions } from '#server/db/schema-photos'
import type { DomainContext } from '#server/domain/tenancy/context'
import { recordChange } from '#server/domain/tenancy/change-log'
import { claimSession } from './complete'
import type { UploadRuntime } from './runtime'
import { findSession, recordOffset, toSession, uploadProblem, type SessionRow, type UploadPurpose, type UploadSession } from './session'

// The Upload session JSON's type, where callers of these functions look for it.
export type { UploadPurpose, UploadSession, UploadState } from './session'

/**
 * The upload engine (docs/photos.md "Upload protocol"), with the semantics of tus and the IETF
 * resumable-upload draft: a session per file; chunks only at the stored offset (409 with the
 * expected offset otherwise); the offset never goes back; a cut connection keeps what arrived;
 * complete checks size, checksum and the type read from the bytes. Bytes stream to the blob
 * store's staging area and are moved into place only when whole. Chunks: chunks.ts; the session
 * row and its checks: session.ts; complete's shared steps: complete.ts.
 *
 * The engine knows no feature. Each feature that takes uploads starts its sessions itself (photos:
 * server/domain/photos/uploads.ts; revisions: server/domain/documents/revisions.ts; support
 * attachments: server/domain/admin/support-attachments.ts) and registers, when its module loads,
 * the finisher that turns a complete session of its purpose into what it makes.
 */

/**
 * What completing a session of each purpose makes, by purpose. Each feature adds its own entry
 * by declaration merging next to its `registerFinisher` call, so `Completed` stays a union the
 * API can switch on without the engine importing the features.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging, one entry per feature
export interface UploadMade {}

/** What completing a session made; `replayed` when completed before. */
export type Completed = { [P in keyof UploadMade]: { purpose: P; replayed: boolean } & UploadMade[P] }[keyof UploadMade]

/** A feature's half of completing: make the thing from the claimed session, or find what was made. */
export type UploadFinisher<P extends keyof UploadMade> = {
  /** Runs after the session is claimed (open → completing); marks it completed or failed. */
  finish(rt: UploadRuntime, row: SessionRow, tenantId: string): Promise<UploadMade[P]>
  /** What a completed session made, for a repeated complete; undefined while not completed. */
  replay(ctx: DomainContext, row: SessionRow): Promise<UploadMade[P] | undefined>
}

const finishers = new Map<string, UploadFinisher<keyof UploadMade>>()

/** Called once per purpose by the module of the feature that takes such uploads. */
export function registerFinisher<P extends keyof UploadMade & UploadPurpose>(purpose: P, finisher: UploadFinisher<P>): void {
  finishers.set(purpose, finisher as unknown as UploadFinisher<keyof UploadMade>)
}

function finisherOf(purpose: string): UploadFinisher<keyof UploadMade> {
  const finisher = finishers.get(purpose)
  // A programming error (the feature's module was never loaded), not a client's: a 500 with a log line.
  if (!finisher) throw new Error(`no upload finisher is registered for purpose ${purpose}`)
  return finisher
}

function made(purpose: string, what: UploadMade[keyof UploadMade], replayed: boolean): Completed {
  return { purpose, replayed, ...what } as Completed
}

/** GET /api/uploads/{id}: the offset to resume from (the staging blob is the truth). */
export async function getUpload(rt: UploadRuntime, id: string): Promise<UploadSession> {
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

/**
 * POST /api/uploads/{id}/complete. Claims the session (open → completing) once every byte is in,
 * then the finisher registered for the session's purpose makes what it stands for. Completing a
 * completed session again answers what it made, so a retry after a lost response is safe
 * (`replayed`).
 */
export async function completeUpload(rt: UploadRuntime, id: string): Promise<Completed> {
  const claimed = await claimSession(rt, id, async (ctx, row) => {
    const found = await finisherOf(row.purpose).replay(ctx, row)
    return found && made(row.purpose, found, true)
  })
  if (claimed.kind === 'replay') return claimed.made
  const { row, tenantId } = claimed
  return made(row.purpose, await finisherOf(row.purpose).finish(rt, row, tenantId), false)
}

/** DELETE /api/uploads/{id}: aborts the upload and frees its staged bytes. */
export async function abortUpload(rt: UploadRuntime, id: string): Promise<void> {
  await abortSession(rt, (ctx) => findSession(ctx, id, { lock: true }))
}

/**
 * Aborts the session `find` answers (read FOR UPDATE): the owner's DELETE above, and an
 * administrator's (server/domain/admin/uploads.ts). Refused once completing or completed; an open
 * session becomes aborted; then its staged bytes go. `then` runs in the same transaction, with the
 * session as it was, to record what the caller must (audit, change log). Answers that row.
 */
export async function abortSession(
  rt: UploadRuntime,
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

import { and, desc, eq, sql, type SQL } from 'drizzle-orm'
import { uploadSessions } from '#server/db/schema-photos'
import { recordAuditIn } from '#server/domain/audit'
import type { PhotoRuntime } from '#server/domain/photos/photos'
import { sessionColumns, type SessionRow } from '#server/domain/uploads/session'
import { abortSession } from '#server/domain/uploads/engine'
import type { DomainContext } from '#server/domain/tenancy/context'
import { pageOf, type Cursor } from '#server/domain/tenancy/paging'
import { olderThan } from '#server/domain/reporting/projects'
import { isUuid } from '~/lib/schemas/uuid'
import { userRefs } from '#server/domain/tenancy/user-refs'
import { Problem, problems } from '#server/http/problem'
import type { Page } from '~/lib/reporting/types'
import { STUCK_AFTER_MS, type AdminUpload, type AdminUploadPurpose, type AdminUploadState, type AdminUploadStats } from '~/lib/admin/uploads'
import type { AuditMeta } from './packages'

/**
 * Administration › Uploads (docs/admin/packages-and-uploads.md "Uploads"): every upload session of
 * the organisation (photos, document revisions, support attachments), its figures, and an
 * administrator's abort of one, which is the owner's abort (server/domain/photos/uploads.ts
 * abortSession) on anyone's session, audited.
 */

export type UploadFilter = {
  state?: AdminUploadState | undefined
  purpose?: AdminUploadPurpose | undefined
  userId?: string | undefined
  after?: Cursor | undefined
  limit: number
}

/** Open or completing past its expiry reads as expired (the sweep marks it so later), as the owner sees it (upload-session.ts toSession). */
function effectiveState(now: Date): SQL<string> {
  return sql<string>`case when ${uploadSessions.state} in ('open', 'completing') and ${uploadSessions.expiresAt} <= ${now.toISOString()}::timestamptz then 'expired' else ${uploadSessions.state} end`
}

function stuckSince(now: Date): Date {
  return new Date(now.getTime() - STUCK_AFTER_MS)
}

function stateFilter(state: AdminUploadState | undefined, now: Date): SQL | undefined {
  return state === undefined ? undefined : sql`${effectiveState(now)} = ${state}`
}

/** GET /api/admin/uploads: newest first, keyset-paged. */
export async function listUploads(ctx: DomainContext, filter: UploadFilter): Promise<Page<AdminUpload>> {
  if (filter.userId !== undefined && !isUuid(filter.userId)) return { items: [], nextCursor: null }
  const rows = await ctx.tx
    .select({
      id: uploadSessions.id,
      purpose: uploadSessions.purpose,
      state: effectiveState(ctx.now),
      fileName: uploadSessions.fileName,
      contentType: uploadSessions.declaredType,
      size: uploadSessions.size,
      offset: uploadSessions.offset,
      userId: uploadSessions.userId,
      failureReason: uploadSessions.failureReason,
      createdAt: uploadSessions.createdAt,
      updatedAt: uploadSessions.updatedAt,
      expiresAt: uploadSessions.expiresAt,
      completedAt: uploadSessions.completedAt,
    })
    .from(uploadSessions)
    .where(
      and(
        eq(uploadSessions.tenantId, ctx.actor.tenantId),
        stateFilter(filter.state, ctx.now),
        filter.purpose === undefined ? undefined : eq(uploadSessions.purpose, filter.purpose),
        filter.userId === undefined ? undefined : eq(uploadSessions.userId, filter.userId),
        olderThan(filter.after, uploadSessions.createdAt, uploadSessions.id),
      ),
    )
    .orderBy(desc(uploadSessions.createdAt), desc(uploadSessions.id))
    .limit(filter.limit + 1)
  const page = pageOf(rows, filter.limit)
  const people = await userRefs(
    ctx,
    page.rows.map((r) => r.userId),
  )
  const stuckBefore = stuckSince(ctx.now).getTime()
  return {
    items: page.rows.map((row) => ({
      id: row.id,
      purpose: row.purpose as AdminUploadPurpose,
      state: row.state as AdminUploadState,
      fileName: row.fileName,
      contentType: row.contentType,
      size: row.size,
      offset: row.offset,
      who: row.userId === null ? null : (people.get(row.userId) ?? null),
      stuck: row.state === 'open' && row.updatedAt.getTime() <= stuckBefore,
      createdAtUtc: row.createdAt.toISOString(),
      updatedAtUtc: row.updatedAt.toISOString(),
      expiresAtUtc: row.expiresAt.toISOString(),
      completedAtUtc: row.completedAt?.toISOString() ?? null,
      failureReason: row.failureReason,
    })),
    nextCursor: page.nextCursor,
  }
}

/** GET /api/admin/uploads/stats: over every session the organisation has (the sweep and retention keep the table small). */
export async function uploadStats(ctx: DomainContext): Promise<AdminUploadStats> {
  const state = effectiveState(ctx.now)
  const stuckBefore = stuckSince(ctx.now).toISOString()
  const [row] = await ctx.tx
    .select({
      open: sql<number>`count(*) filter (where ${state} = 'open')`.mapWith(Number),
      completing: sql<number>`count(*) filter (where ${state} = 'completing')`.mapWith(Number),
      completed: sql<number>`count(*) filter (where ${state} = 'completed')`.mapWith(Number),
      failed: sql<number>`count(*) filter (where ${state} = 'failed')`.mapWith(Number),
      aborted: sql<number>`count(*) filter (where ${state} = 'aborted')`.mapWith(Number),
      expired: sql<number>`count(*) filter (where ${state} = 'expired')`.mapWith(Number),
      stuck: sql<number>`count(*) filter (where ${state} = 'open' and ${uploadSessions.updatedAt} <= ${stuckBefore}::timestamptz)`.mapWith(Number),
      bytesCompleted: sql<number>`coalesce(sum(${uploadSessions.size}) filter (where ${state} = 'completed'), 0)`.mapWith(Number),
      bytesInProgress: sql<number>`coalesce(sum(${uploadSessions.offset}) filter (where ${state} in ('open', 'completing')), 0)`.mapWith(Number),
    })
    .from(uploadSessions)
    .where(eq(uploadSessions.tenantId, ctx.actor.tenantId))
  return row ?? { open: 0, completing: 0, completed: 0, failed: 0, aborted: 0, expired: 0, stuck: 0, bytesCompleted: 0, bytesInProgress: 0 }
}

/** Any member's session of the organisation, locked (another tenant's reads as 404 under row-level security). */
async function findAnySession(ctx: DomainContext, id: string): Promise<SessionRow> {
  const notFound = () => new Problem(problems.notFound('The upload session was not found.'))
  if (!isUuid(id)) throw notFound()
  const [row] = await ctx.tx
    .select(sessionColumns)
    .from(uploadSessions)
    .where(and(eq(uploadSessions.tenantId, ctx.actor.tenantId), eq(uploadSessions.id, id)))
    .limit(1)
    .for('update')
  if (!row) throw notFound()
  return row
}

/**
 * DELETE /api/admin/uploads/{id}: the owner's abort (refused with 409 once completing or
 * completed; an open session becomes aborted; its staged bytes go), on anyone's session. A
 * session that really changed state is audited (`admin.upload.aborted`) and announced
 * (EntityChanged UploadSession); one already aborted, expired or failed just loses any staged bytes left.
 */
export async function abortUploadAsAdmin(rt: PhotoRuntime, id: string, meta: AuditMeta): Promise<void> {
  await abortSession(
    rt,
    (ctx) => findAnySession(ctx, id),
    async (ctx, before) => {
      if (before.state !== 'open') return
      await recordAuditIn(ctx.tx, {
        tenantId: ctx.actor.tenantId,
        actorUserId: ctx.actor.userId,
        action: 'admin.upload.aborted',
        targetType: 'UploadSession',
        targetId: before.id,
        ip: meta.ip,
        correlationId: meta.correlationId,
        data: {
          purpose: before.purpose,
          fileName: before.fileName,
          ownerUserId: before.userId,
          size: before.size,
          offset: before.offset,
          expired: before.expiresAt.getTime() <= ctx.now.getTime(),
        },
        at: ctx.now,
      })
    },
  )
}

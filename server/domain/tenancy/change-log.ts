import { eq, sql } from 'drizzle-orm'
import { queueCommittedChange } from '#server/db/committed-changes'
import { changeLog, tenantRevisions } from '#server/db/schema-reporting'
import { rowsOf } from '#server/db/tenancy'
import type { DomainContext } from '#server/domain/tenancy/context'

export type SyncedEntity = 'Project' | 'Report' | 'ReportItem'
/** Entities of the change log that mobile sync does not carry (realtime announces them). */
export type LoggedEntity =
  | SyncedEntity
  | 'Document'
  | 'DocumentFolder'
  | 'Workflow'
  | 'DocumentSet'
  | 'Transmittal'
  // The Administration area (issue 13; spec §3 "Realtime event entity types").
  | 'User'
  | 'Organisation'
  | 'Membership'
  | 'Device'
  | 'JoinRequest'
  | 'Package'
  | 'UploadSession'
  | 'Invite'
  | 'SupportTicket'
  // Administration part 2 and settings (issue 14).
  | 'MailOutbox'
  | 'EmailTemplate'
  | 'AdminConfig'
  | 'UserSettings'
/** What the sync feeds read of the change log. */
export const SYNCED_ENTITIES: readonly SyncedEntity[] = ['Project', 'Report', 'ReportItem']
export type ChangeType = 'Created' | 'Updated' | 'Deleted'

/**
 * Bumps the tenant's revision and appends the change, in the caller's transaction. The revision
 * row is locked until that transaction ends, so revisions are handed out one at a time, in commit
 * order, without gaps (a rolled-back change gives its number back). Returns the new revision,
 * which the changed row stores. Once the transaction commits, the change is announced to realtime
 * (server/db/committed-changes.ts); a rolled-back one never is.
 */
export async function recordChange(ctx: DomainContext, entity: LoggedEntity, entityId: string, changeType: ChangeType): Promise<number> {
  const [row] = await ctx.tx
    .insert(tenantRevisions)
    .values({ tenantId: ctx.actor.tenantId, revision: 1 })
    .onConflictDoUpdate({ target: tenantRevisions.tenantId, set: { revision: sql`${tenantRevisions.revision} + 1` } })
    .returning({ revision: tenantRevisions.revision })
  if (!row) throw new Error('tenant revision not bumped')
  await ctx.tx.insert(changeLog).values({ tenantId: ctx.actor.tenantId, revision: row.revision, entity, entityId, changeType, changedAt: ctx.now })
  queueCommittedChange(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    entity,
    entityId,
    changeType,
    revision: row.revision,
    changedAt: ctx.now,
    actorUserId: ctx.actor.userId,
  })
  return row.revision
}

/**
 * Archiving or unarchiving a project or report moves its children in or out of the mobile feed's
 * scope without a change of their own: the mobile feed refuses cursors from before this revision
 * (410), so phones take a fresh snapshot. Call after recordChange, in the same transaction.
 */
export async function recordScopeChange(ctx: DomainContext, revision: number): Promise<void> {
  await ctx.tx.update(tenantRevisions).set({ scopeRevision: revision }).where(eq(tenantRevisions.tenantId, ctx.actor.tenantId))
}

/** How long change-log rows are kept: far longer than a cursor lives (a day), so a live client never meets the horizon. */
export const CHANGE_LOG_RETENTION_DAYS = 7

/**
 * Deletes up to `batch` change-log rows of the tenant older than `before`, oldest first, and moves
 * the tenant's compaction horizon (`compacted_through`) to the newest revision deleted. Rows
 * another instance is deleting are skipped (SKIP LOCKED). Returns how many rows went.
 */
export async function compactChangeLog(ctx: DomainContext, before: Date, batch: number): Promise<number> {
  const tenantId = ctx.actor.tenantId
  const deleted = rowsOf<{ revision: number }>(
    await ctx.tx.execute(sql`
      with doomed as (
        select revision from ${changeLog}
        where tenant_id = ${tenantId} and changed_at < ${before.toISOString()}::timestamptz
        order by revision limit ${batch} for update skip locked
      )
      delete from ${changeLog} c using doomed where c.tenant_id = ${tenantId} and c.revision = doomed.revision
      returning c.revision::float8 as revision`),
  )
  if (deleted.length === 0) return 0
  const newest = Math.max(...deleted.map((row) => Number(row.revision)))
  await ctx.tx
    .update(tenantRevisions)
    .set({ compactedThrough: sql`greatest(${tenantRevisions.compactedThrough}, ${newest})` })
    .where(eq(tenantRevisions.tenantId, tenantId))
  return deleted.length
}

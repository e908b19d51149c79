import { eq, sql } from 'drizzle-orm'
import { queueCommittedChange } from '#server/db/committed-changes'
import { changeLog, tenantRevisions } from '#server/db/schema-reporting'
import type { DomainContext } from './context'

export type SyncedEntity = 'Project' | 'Report' | 'ReportItem'
export type ChangeType = 'Created' | 'Updated' | 'Deleted'

/**
 * Bumps the tenant's revision and appends the change, in the caller's transaction. The revision
 * row is locked until that transaction ends, so revisions are handed out one at a time, in commit
 * order, without gaps (a rolled-back change gives its number back). Returns the new revision,
 * which the changed row stores. Once the transaction commits, the change is announced to realtime
 * (server/db/committed-changes.ts); a rolled-back one never is.
 */
export async function recordChange(ctx: DomainContext, entity: SyncedEntity, entityId: string, changeType: ChangeType): Promise<number> {
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

import { and, asc, eq, sql, type SQL } from 'drizzle-orm'
import { itemActivity, type ActivityChange, type itemResponses } from '#server/db/schema-reporting'
import type { ActivityEntry } from '~/lib/reporting/types'
import type { DomainContext } from '../tenancy/context'
import { findItem } from './item-view'
import { refOf, userRefs } from '../tenancy/user-refs'

export type ActivityAction = ActivityEntry['action']

/**
 * The item's history: who, when, what, old → new, and why when the action has a reason (a rejected
 * close). Append-only (the application role may only insert and read item_activity), so the
 * reason is written with the row, in the same transaction as the change it describes.
 */
export async function recordActivity(ctx: DomainContext, itemId: string, action: ActivityAction, changes: ActivityChange[] = [], reason?: string): Promise<void> {
  await ctx.tx.insert(itemActivity).values({
    tenantId: ctx.actor.tenantId,
    itemId,
    actorUserId: ctx.actor.userId,
    action,
    changes,
    reason: reason ?? null,
    createdAt: afterLatest(ctx, itemActivity, itemId),
  })
}

/**
 * The request's time, but strictly after the item's latest entry in `table`: two changes in the
 * same millisecond still list in the order they happened. Writers hold the item's row lock, so
 * the latest entry cannot move meanwhile.
 */
export function afterLatest(ctx: DomainContext, table: typeof itemActivity | typeof itemResponses, itemId: string): SQL<Date> {
  return sql<Date>`greatest(${ctx.now.toISOString()}::timestamptz, (select max(${table.createdAt}) + interval '1 microsecond' from ${table} where ${table.tenantId} = ${ctx.actor.tenantId} and ${table.itemId} = ${itemId}))`
}

/** GET /api/items/{id}/activity: oldest first. */
export async function listActivity(ctx: DomainContext, itemId: string): Promise<ActivityEntry[]> {
  const item = await findItem(ctx, itemId)
  const rows = await ctx.tx
    .select({
      id: itemActivity.id,
      itemId: itemActivity.itemId,
      actorUserId: itemActivity.actorUserId,
      action: itemActivity.action,
      changes: itemActivity.changes,
      reason: itemActivity.reason,
      createdAt: itemActivity.createdAt,
    })
    .from(itemActivity)
    .where(and(eq(itemActivity.tenantId, ctx.actor.tenantId), eq(itemActivity.itemId, item.id)))
    .orderBy(asc(itemActivity.createdAt), asc(itemActivity.id))
  const actors = await userRefs(ctx, rows.map((r) => r.actorUserId))
  return rows.map(
    (row) =>
      ({
        id: row.id,
        itemId: row.itemId,
        action: row.action as ActivityAction,
        actor: refOf(actors, row.actorUserId),
        changes: row.changes,
        reason: row.reason,
        createdAtUtc: row.createdAt.toISOString(),
      }) satisfies ActivityEntry,
  )
}

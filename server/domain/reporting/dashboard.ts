import { and, desc, eq, isNull, ne, sql } from 'drizzle-orm'
import { memberships, users } from '#server/db/schema'
import { reusableSelect, type ValueOf } from '#server/db/reusable-select'
import { itemActivity, reportItems } from '#server/db/schema-reporting'
import type { ActivityEntry, DashboardFigures } from '~/lib/reporting/types'
import type { DomainContext } from '../tenancy/context'
import { refOf, userRefs } from '../tenancy/user-refs'

/** How many activity entries the dashboard shows. */
export const RECENT_ACTIVITY_LIMIT = 10

/**
 * The dashboard's figures over the organisation's outstanding items (not closed, not deleted):
 * one aggregate query over the outstanding index, and one for the latest activity.
 *
 * "Awaiting my confirmation" counts close-requested items whose verifier is me. The verifier is
 * the item's creator (the contract's "next action"): for a read-write member, the items they
 * created; a read-only member verifies nothing. An administrator may verify any item, but counting
 * every close request of the organisation would bury their own; so an administrator counts the
 * items they created plus those nobody else can verify any more (the creator is gone, or is no
 * longer an active read-write or admin member with an active account), which would otherwise wait
 * for ever.
 */
export async function dashboardFigures(ctx: DomainContext): Promise<DashboardFigures> {
  const role = ctx.actor.roleKey === 'admin' || ctx.actor.roleKey === 'read-write' ? ctx.actor.roleKey : 'other'
  const [counts] = await countsStatement(ctx.tx, { tenantId: ctx.actor.tenantId, me: ctx.actor.userId, today: ctx.now.toISOString().slice(0, 10) }, role)
  return {
    openCount: counts?.openCount ?? 0,
    awaitingMyConfirmationCount: counts?.awaitingMyConfirmationCount ?? 0,
    overdueCount: counts?.overdueCount ?? 0,
    assignedToMeCount: counts?.assignedToMeCount ?? 0,
    recentActivity: await recentActivity(ctx),
  } satisfies DashboardFigures
}

/** The dashboard's counts, built once for each kind of verifier (server/db/reusable-select.ts): every dashboard asks them. */
const countsStatement = reusableSelect((tx, value: ValueOf<{ tenantId: string; me: string; today: string }>, role: 'admin' | 'read-write' | 'other') => {
  const creatorCanVerify = sql`exists (
    select 1 from ${memberships} inner join ${users} on ${users.id} = ${memberships.userId}
    where ${memberships.tenantId} = ${reportItems.tenantId} and ${memberships.userId} = ${reportItems.createdBy}
      and ${memberships.status} = 'active' and ${users.status} = 'active' and ${memberships.roleKey} in ('admin', 'read-write'))`
  const me = value('me')
  const mine = role === 'admin' ? sql`(${reportItems.createdBy} = ${me} or not ${creatorCanVerify})` : role === 'read-write' ? sql`${reportItems.createdBy} = ${me}` : sql`false`
  return tx
    .select({
      openCount: sql<number>`count(*)`.mapWith(Number),
      awaitingMyConfirmationCount: sql<number>`count(*) filter (where ${reportItems.status} = 'close_requested' and ${mine})`.mapWith(Number),
      overdueCount: sql<number>`count(*) filter (where ${reportItems.dueDate} < ${value('today')}::date)`.mapWith(Number),
      assignedToMeCount: sql<number>`count(*) filter (where ${reportItems.assigneeUserId} = ${me})`.mapWith(Number),
    })
    .from(reportItems)
    .where(and(eq(reportItems.tenantId, value('tenantId')), ne(reportItems.status, 'closed'), isNull(reportItems.deletedAt)))
})

/** The organisation's latest activity, newest first. Deleted items are never served, nor their history. */
async function recentActivity(ctx: DomainContext): Promise<DashboardFigures['recentActivity']> {
  const rows = await activityStatement(ctx.tx, { tenantId: ctx.actor.tenantId, limit: RECENT_ACTIVITY_LIMIT })
  const refs = await userRefs(ctx, rows.map((r) => r.actorUserId))
  return rows.map((row) => ({
    id: row.id,
    itemId: row.itemId,
    action: row.action as ActivityEntry['action'],
    actor: refOf(refs, row.actorUserId),
    changes: row.changes,
    reason: row.reason,
    createdAtUtc: row.createdAt.toISOString(),
    item: { id: row.itemId, number: row.itemNumber, title: row.itemTitle },
  }))
}

/** Every dashboard shows it: built once (server/db/reusable-select.ts). */
const activityStatement = reusableSelect((tx, value: ValueOf<{ tenantId: string; limit: number }>) =>
  tx
    .select({
      id: itemActivity.id,
      itemId: itemActivity.itemId,
      action: itemActivity.action,
      actorUserId: itemActivity.actorUserId,
      changes: itemActivity.changes,
      reason: itemActivity.reason,
      createdAt: itemActivity.createdAt,
      itemNumber: reportItems.number,
      itemTitle: reportItems.title,
    })
    .from(itemActivity)
    .innerJoin(reportItems, and(eq(reportItems.tenantId, itemActivity.tenantId), eq(reportItems.id, itemActivity.itemId)))
    .where(and(eq(itemActivity.tenantId, value('tenantId')), isNull(reportItems.deletedAt)))
    .orderBy(desc(itemActivity.createdAt), desc(itemActivity.id))
    .limit(value('limit')),
)

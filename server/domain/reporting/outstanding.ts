import { and, eq, isNull, lt, or, sql, type SQL } from 'drizzle-orm'
import { reportItems } from '#server/db/schema-reporting'
import type { Item, Page } from '~/lib/reporting/types'
import type { DomainContext } from '../tenancy/context'
import { itemColumns, todayUtc, toItems } from './item-view'
import { pageOf, type Cursor } from '../tenancy/paging'

export type OutstandingQuery = {
  limit: number
  /** The nextCursor of the previous page: rows strictly older than it. */
  before?: Cursor | undefined
  projectId?: string | undefined
  reportId?: string | undefined
  packageKey?: string | undefined
  status?: 'open' | 'close_requested' | undefined
  assigneeUserId?: string | undefined
  overdue?: boolean | undefined
}

/** The filters of the outstanding list, as its query's conditions (the paging cursor aside). */
function outstandingConditions(ctx: DomainContext, query: Omit<OutstandingQuery, 'limit' | 'before'>): Array<SQL | undefined> {
  const conditions: Array<SQL | undefined> = [
    eq(reportItems.tenantId, ctx.actor.tenantId),
    sql`${reportItems.status} <> 'closed'`,
    isNull(reportItems.deletedAt),
  ]
  if (query.projectId) conditions.push(eq(reportItems.projectId, query.projectId))
  if (query.reportId) conditions.push(eq(reportItems.reportId, query.reportId))
  if (query.packageKey) conditions.push(eq(reportItems.packageKey, query.packageKey))
  if (query.status) conditions.push(eq(reportItems.status, query.status))
  if (query.assigneeUserId) conditions.push(eq(reportItems.assigneeUserId, query.assigneeUserId))
  if (query.overdue !== undefined) {
    const today = todayUtc(ctx.now)
    conditions.push(query.overdue ? lt(reportItems.dueDate, today) : or(isNull(reportItems.dueDate), sql`${reportItems.dueDate} >= ${today}::date`))
  }
  return conditions
}

/** How many items the outstanding list holds for these filters (an export decides by it whether to run as a job). */
export async function countOutstanding(ctx: DomainContext, query: Omit<OutstandingQuery, 'limit' | 'before'>): Promise<number> {
  const [row] = await ctx.tx
    .select({ n: sql<number>`count(*)::int` })
    .from(reportItems)
    .where(and(...outstandingConditions(ctx, query)))
  return Number(row?.n ?? 0)
}

/**
 * GET /api/items/outstanding: what still waits for someone, newest first, keyset-paged.
 *
 * Written to match the partial indexes report_items_outstanding_idx and
 * report_items_outstanding_project_idx (tenant, [project,] created_at desc nulls last, id desc
 * nulls last): the predicate is spelled out literally (not as bound parameters) so PostgreSQL can
 * prove it implies the index's, and the order says NULLS LAST like the index does (a bare DESC
 * means NULLS FIRST, and the planner then sorts the whole table instead of reading the index).
 * A page is an index range scan from the cursor that stops after limit + 1 rows, however deep.
 * docs/performance.md has the plans and the figures at 100,000 items.
 */
export async function listOutstanding(ctx: DomainContext, query: OutstandingQuery): Promise<Page<Item>> {
  const conditions = outstandingConditions(ctx, query)
  if (query.before) {
    conditions.push(sql`(${reportItems.createdAt}, ${reportItems.id}) < (${query.before.createdAt.toISOString()}::timestamptz, ${query.before.id}::uuid)`)
  }
  const rows = await ctx.tx
    .select(itemColumns)
    .from(reportItems)
    .where(and(...conditions))
    .orderBy(sql`${reportItems.createdAt} desc nulls last`, sql`${reportItems.id} desc nulls last`)
    .limit(query.limit + 1)
  const { rows: page, nextCursor } = pageOf(rows, query.limit)
  return { items: await toItems(ctx, page), nextCursor }
}

import { and, eq, isNull, lt, or, sql, type SQL } from 'drizzle-orm'
import { reusableSelect, type ValueOf } from '#server/db/reusable-select'
import { reportItems } from '#server/db/schema-reporting'
import type { Item, Page } from '~/lib/reporting/types'
import type { DomainContext } from '../tenancy/context'
import { itemColumns, todayUtc, toItems } from './item-view'
import { pageOf, type Cursor } from '../tenancy/paging'
import { olderThanKey } from './projects'

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

type Filters = Omit<OutstandingQuery, 'limit' | 'before'>
/** The values of the outstanding list's statements: the filters', today's date and the cursor's. */
type Values = { tenantId: string; projectId?: string | undefined; reportId?: string | undefined; packageKey?: string | undefined; status?: string | undefined; assigneeUserId?: string | undefined; today: string; beforeCreatedAt?: string | undefined; beforeId?: string | undefined; limit?: number | undefined }
/** Which filters a statement has (each a letter; `o`/`n` overdue or not, `b` a cursor): its text is built once per shape. */
type Shape = string

function shapeOf(query: Filters, before: Cursor | undefined): Shape {
  const letters = [query.projectId ? 'p' : '', query.reportId ? 'r' : '', query.packageKey ? 'k' : '', query.status ? 's' : '', query.assigneeUserId ? 'a' : '']
  if (query.overdue !== undefined) letters.push(query.overdue ? 'o' : 'n')
  if (before) letters.push('b')
  return letters.join('')
}

function valuesOf(ctx: DomainContext, query: Filters, before?: Cursor): Values {
  const { projectId, reportId, packageKey, status, assigneeUserId } = query
  return { tenantId: ctx.actor.tenantId, projectId, reportId, packageKey, status, assigneeUserId, today: todayUtc(ctx.now), beforeCreatedAt: before?.createdAt.toISOString(), beforeId: before?.id }
}

/** The filters of the outstanding list, as its statements' conditions (the paging cursor aside). */
function outstandingConditions(value: ValueOf<Values>, shape: Shape): Array<SQL | undefined> {
  const has = (letter: string) => shape.includes(letter)
  return [
    eq(reportItems.tenantId, value('tenantId')),
    sql`${reportItems.status} <> 'closed'`,
    isNull(reportItems.deletedAt),
    has('p') ? eq(reportItems.projectId, value('projectId')) : undefined,
    has('r') ? eq(reportItems.reportId, value('reportId')) : undefined,
    has('k') ? eq(reportItems.packageKey, value('packageKey')) : undefined,
    has('s') ? eq(reportItems.status, value('status')) : undefined,
    has('a') ? eq(reportItems.assigneeUserId, value('assigneeUserId')) : undefined,
    has('o') ? lt(reportItems.dueDate, value('today')) : undefined,
    has('n') ? or(isNull(reportItems.dueDate), sql`${reportItems.dueDate} >= ${value('today')}::date`) : undefined,
  ]
}

const countStatement = reusableSelect((tx, value: ValueOf<Values>, shape: Shape) =>
  tx
    .select({ n: sql<number>`count(*)::int` })
    .from(reportItems)
    .where(and(...outstandingConditions(value, shape))),
)

/** How many items the outstanding list holds for these filters (an export decides by it whether to run as a job). */
export async function countOutstanding(ctx: DomainContext, query: Filters): Promise<number> {
  const [row] = await countStatement(ctx.tx, valuesOf(ctx, query), shapeOf(query, undefined))
  return Number(row?.n ?? 0)
}

/**
 * Written to match the partial indexes report_items_outstanding_idx and
 * report_items_outstanding_project_idx (tenant, [project,] created_at desc nulls last, id desc
 * nulls last): the predicate is spelled out literally (not as bound parameters) so PostgreSQL can
 * prove it implies the index's, and the order says NULLS LAST like the index does (a bare DESC
 * means NULLS FIRST, and the planner then sorts the whole table instead of reading the index).
 * A page is an index range scan from the cursor that stops after limit + 1 rows, however deep.
 * docs/performance.md has the plans and the figures at 100,000 items. Drizzle builds each shape's
 * text once (server/db/reusable-select.ts): every items screen and list sends it.
 */
const pageStatement = reusableSelect((tx, value: ValueOf<Values>, shape: Shape) =>
  tx
    .select(itemColumns)
    .from(reportItems)
    .where(
      and(
        ...outstandingConditions(value, shape),
        shape.includes('b') ? olderThanKey(value('beforeCreatedAt'), value('beforeId'), reportItems.createdAt, reportItems.id) : undefined,
      ),
    )
    .orderBy(sql`${reportItems.createdAt} desc nulls last`, sql`${reportItems.id} desc nulls last`)
    .limit(value('limit')),
)

/** GET /api/items/outstanding: what still waits for someone, newest first, keyset-paged. */
export async function listOutstanding(ctx: DomainContext, query: OutstandingQuery): Promise<Page<Item>> {
  const { limit, before, ...filters } = query
  const rows = await pageStatement(ctx.tx, { ...valuesOf(ctx, filters, before), limit: limit + 1 }, shapeOf(filters, before))
  const { rows: page, nextCursor } = pageOf(rows, limit)
  return { items: await toItems(ctx, page), nextCursor }
}

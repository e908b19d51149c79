import { readOnceIn } from '#server/domain/tenancy/request-scope'
import { and, eq, isNull, sql } from 'drizzle-orm'
import { reportItems } from '#server/db/schema-reporting'
import { reusableSelect, type ValueOf } from '#server/db/reusable-select'
import { rowsOf } from '#server/db/tenancy'
import { isUuid } from '~/lib/schemas/uuid'
import { Problem, problems } from '#server/http/problem'
import type { Item, ItemPriority, ItemStatus, NextAction, UserRef } from '~/lib/reporting/types'
import type { DomainContext } from '../tenancy/context'
import { refOf } from '../tenancy/user-refs'

/**
 * The Item JSON of docs/site-reporting.md, built from item rows: titles of the report and the
 * project, the people as UserRefs, whether it is overdue and who must act next ("ball in court").
 * Lookups are batched per page (one statement for the titles and names), so a page of 100 items costs two.
 */

export const itemColumns = {
  id: reportItems.id,
  number: reportItems.number,
  reportId: reportItems.reportId,
  projectId: reportItems.projectId,
  title: reportItems.title,
  description: reportItems.description,
  status: reportItems.status,
  priority: reportItems.priority,
  assigneeUserId: reportItems.assigneeUserId,
  packageKey: reportItems.packageKey,
  location: reportItems.location,
  dueDate: reportItems.dueDate,
  createdBy: reportItems.createdBy,
  closedAt: reportItems.closedAt,
  closedBy: reportItems.closedBy,
  createdAt: reportItems.createdAt,
  updatedAt: reportItems.updatedAt,
  revision: reportItems.revision,
}

export type ItemRow = {
  id: string
  number: number
  reportId: string
  projectId: string
  title: string
  description: string | null
  status: string
  priority: string
  assigneeUserId: string | null
  packageKey: string | null
  location: string | null
  dueDate: string | null
  createdBy: string | null
  closedAt: Date | null
  closedBy: string | null
  createdAt: Date
  updatedAt: Date
  revision: number
}

/**
 * A live (not deleted) item of the actor's tenant, or 404: another tenant's id, a deleted item
 * and a malformed id all read the same. `lock` takes the row lock a read-modify-write needs.
 */
export async function findItem(ctx: DomainContext, id: string, options: { lock?: boolean } = {}): Promise<ItemRow> {
  if (!isUuid(id)) throw new Problem(problems.notFound('The item was not found.'))
  const values = { tenantId: ctx.actor.tenantId, id }
  // A page's reads (the item, its responses, photos and pin) look the item up once between them.
  const [row] = options.lock ? await itemStatement(ctx.tx, values, 'lock') : await readOnceIn(ctx.tx, `item:${ctx.actor.tenantId}:${id}`, () => itemStatement(ctx.tx, values))
  if (!row) throw new Problem(problems.notFound('The item was not found.'))
  return { ...row }
}

/** An item by id, for update when `lock`: every item page and item call reads it (built once, server/db/reusable-select.ts). */
const itemStatement = reusableSelect((tx, value: ValueOf<{ tenantId: string; id: string }>, shape: '' | 'lock') => {
  const query = tx
    .select(itemColumns)
    .from(reportItems)
    .where(and(eq(reportItems.tenantId, value('tenantId')), eq(reportItems.id, value('id')), isNull(reportItems.deletedAt)))
    .limit(1)
  return shape === 'lock' ? query.for('update') : query
})

/** The calendar day (UTC) an item is due by: past it, an item that is not closed is overdue. */
export function todayUtc(now: Date): string {
  return now.toISOString().slice(0, 10)
}

export async function toItems(ctx: DomainContext, rows: ItemRow[]): Promise<Item[]> {
  if (rows.length === 0) return []
  const reportIds = [...new Set(rows.map((r) => r.reportId))]
  const projectIds = [...new Set(rows.map((r) => r.projectId))]
  const userIds = [...new Set(rows.flatMap((r) => [r.assigneeUserId, r.createdBy, r.closedBy]).filter((id): id is string => id !== null))]
  // The report and project titles and the people's names in one statement (issue 37), the
  // reports and projects this tenant's (row-level security as well). The ids go as arrays, so
  // the text is the same for every page (PostgreSQL plans it once; an `in (…)` list would be a new
  // text for each length). They are uuids read from the rows: the array literal needs no quoting.
  const tenantId = ctx.actor.tenantId
  const names = rowsOf<{ kind: 'report' | 'project' | 'user'; id: string; name: string | null }>(
    await ctx.tx.execute(sql`select 'report' as kind, id, title as name from reports where tenant_id = ${tenantId} and id = any(${uuidArray(reportIds)}::uuid[])
      union all select 'project', id, title from projects where tenant_id = ${tenantId} and id = any(${uuidArray(projectIds)}::uuid[])
      union all select 'user', id, display_name from users where id = any(${uuidArray(userIds)}::uuid[])`),
  )
  const reportTitles = new Map<string, string | null>()
  const projectTitles = new Map<string, string | null>()
  const people = new Map<string, UserRef>()
  for (const { kind, id, name } of names) {
    if (kind === 'report') reportTitles.set(id, name)
    else if (kind === 'project') projectTitles.set(id, name)
    else if (name !== null) people.set(id, { id, displayName: name })
  }
  const today = todayUtc(ctx.now)
  const ref = (id: string | null) => refOf(people, id)
  return rows.map((row) => {
    const status = row.status as ItemStatus
    const assignee = ref(row.assigneeUserId)
    const createdBy = ref(row.createdBy)
    return {
      id: row.id,
      number: row.number,
      reportId: row.reportId,
      reportTitle: reportTitles.get(row.reportId) ?? null,
      projectId: row.projectId,
      projectTitle: projectTitles.get(row.projectId) ?? null,
      title: row.title,
      description: row.description,
      status,
      priority: row.priority as ItemPriority,
      assignee,
      packageKey: row.packageKey,
      location: row.location,
      dueDate: row.dueDate,
      overdue: status !== 'closed' && row.dueDate !== null && row.dueDate < today,
      createdBy,
      closedAtUtc: row.closedAt?.toISOString() ?? null,
      closedBy: ref(row.closedBy),
      createdAtUtc: row.createdAt.toISOString(),
      updatedAtUtc: row.updatedAt.toISOString(),
      revision: row.revision,
      nextAction: nextAction(status, assignee, createdBy),
    } satisfies Item
  })
}

/** PostgreSQL's text of a uuid array, for ids read from the database (no quoting needed). */
function uuidArray(ids: readonly string[]): string {
  return `{${ids.join(',')}}`
}

export async function toItem(ctx: DomainContext, row: ItemRow): Promise<Item> {
  const [item] = await toItems(ctx, [row])
  if (!item) throw new Error('item view not built')
  return item
}

/** Ball in court: open waits on the assignee, a close request on the verifier (the creator). */
export function nextAction(status: ItemStatus, assignee: UserRef | null, verifier: UserRef | null): NextAction {
  switch (status) {
    case 'open':
      return assignee
        ? { by: 'assignee', user: assignee, label: `Waiting on ${assignee.displayName}` }
        : { by: 'assignee', user: null, label: 'Needs an assignee' }
    case 'close_requested':
      return verifier
        ? { by: 'verifier', user: verifier, label: `Waiting on ${verifier.displayName} to confirm the close` }
        : { by: 'verifier', user: null, label: 'Waiting on an administrator to confirm the close' }
    case 'closed':
      return { by: 'none', user: null, label: 'No action needed' }
  }
}

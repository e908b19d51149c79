import { randomUUID } from 'node:crypto'
import { asc, sql } from 'drizzle-orm'
import { expect } from 'vitest'
import { changeLog, itemActivity, packages, projectPackages, reportItems } from '#server/db/schema-reporting'
import { rowsOf, withTenant } from '#server/db/tenancy'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { ItemPriority, ItemStatus, Project, Report } from '~/lib/reporting/types'
import { createMember, show, signedInClient, type RoleKey, type TestClient, type TestMember, type TestTenant } from './auth'
import type { TestBackend } from './backend'

/**
 * Site-reporting test data (projects, reports, views, packages, members, dashboard tests): members
 * with a signed-in client per role, and rows the items API would make (items, activity, packages)
 * written directly, through recordChange like the application.
 */

export type Signed = TestMember & { c: TestClient }

/** A member of `tenant` (a new organisation when absent) with a client signed in as them. */
export async function signedMember(t: TestBackend, roleKey: RoleKey, tenant?: TestTenant): Promise<Signed> {
  const member = await createMember(t.db, { roleKey, ...(tenant && { tenant }) })
  return { ...member, c: await signedInClient(t, member) }
}

/** A new organisation with one signed-in member of each role. */
export async function organisation(t: TestBackend): Promise<{ tenant: TestTenant; admin: Signed; writer: Signed; reader: Signed }> {
  const admin = await signedMember(t, 'admin')
  const writer = await signedMember(t, 'read-write', admin.tenant)
  const reader = await signedMember(t, 'read-only', admin.tenant)
  return { tenant: admin.tenant, admin, writer, reader }
}

/** The JSON body of a response that must have `status`. */
export async function body<T>(response: Response, status = 200): Promise<T> {
  expect(response.status, await show(response)).toBe(status)
  return (await response.json()) as T
}

export function patch(c: TestClient, path: string, json: unknown): Promise<Response> {
  return c.request(path, { method: 'PATCH', json })
}

export function put(c: TestClient, path: string, json: unknown): Promise<Response> {
  return c.request(path, { method: 'PUT', json })
}

export async function newProject(c: TestClient, json: { title?: string | null; code?: string | null } = { title: `Project ${randomUUID().slice(0, 6)}` }): Promise<Project> {
  return body<Project>(await c.post('/api/projects', json), 201)
}

export async function newReport(c: TestClient, projectId: string, title: string | null = `Report ${randomUUID().slice(0, 6)}`): Promise<Report> {
  return body<Report>(await c.post('/api/reports', { projectId, title }), 201)
}

/** The tenant's change log, in revision order. */
export async function changeLogOf(t: TestBackend, tenantId: string) {
  return withTenant(t.db, tenantId, (tx) =>
    tx
      .select({ revision: changeLog.revision, entity: changeLog.entity, entityId: changeLog.entityId, changeType: changeLog.changeType })
      .from(changeLog)
      .orderBy(asc(changeLog.revision)),
  )
}

export type ItemFields = {
  title?: string
  status?: ItemStatus
  priority?: ItemPriority
  assigneeUserId?: string | null
  createdBy?: string | null
  dueDate?: string | null
  packageKey?: string | null
  deleted?: boolean
}

/** A report item as the items API would store it (next number, revision from recordChange). */
export async function insertItem(t: TestBackend, actor: { tenantId: string; userId: string }, report: { id: string; projectId: string }, fields: ItemFields = {}) {
  return withTenant(t.db, actor.tenantId, async (tx) => {
    const now = t.now()
    const id = randomUUID()
    const revision = await recordChange({ tx, actor: { ...actor, roleKey: 'read-write' }, now }, 'ReportItem', id, 'Created')
    const [last] = await tx.select({ number: sql<number>`coalesce(max(${reportItems.number}), 0)`.mapWith(Number) }).from(reportItems)
    const number = (last?.number ?? 0) + 1
    const status = fields.status ?? 'open'
    await tx.insert(reportItems).values({
      tenantId: actor.tenantId,
      id,
      reportId: report.id,
      projectId: report.projectId,
      number,
      title: fields.title ?? `Item ${number}`,
      status,
      priority: fields.priority ?? 'medium',
      assigneeUserId: fields.assigneeUserId ?? null,
      packageKey: fields.packageKey ?? null,
      dueDate: fields.dueDate ?? null,
      createdBy: fields.createdBy === undefined ? actor.userId : fields.createdBy,
      closedAt: status === 'closed' ? now : null,
      closedBy: status === 'closed' ? actor.userId : null,
      deletedAt: fields.deleted ? now : null,
      revision,
      createdAt: now,
      updatedAt: now,
    })
    return { id, number, title: fields.title ?? `Item ${number}` }
  })
}

export async function insertActivity(t: TestBackend, tenantId: string, itemId: string, actorUserId: string, action: string, at: Date) {
  const id = randomUUID()
  await withTenant(t.db, tenantId, (tx) => tx.insert(itemActivity).values({ tenantId, id, itemId, actorUserId, action, changes: [{ field: 'status', from: 'open', to: 'close_requested' }], createdAt: at }))
  return id
}

export async function insertPackages(t: TestBackend, tenantId: string, rows: Array<{ key: string; name: string; active?: boolean; sortOrder?: number }>) {
  await withTenant(t.db, tenantId, (tx) => tx.insert(packages).values(rows.map((r) => ({ tenantId, key: r.key, name: r.name, active: r.active ?? true, sortOrder: r.sortOrder ?? 0 }))))
}

export async function setProjectPackage(t: TestBackend, tenantId: string, projectId: string, packageKey: string, active: boolean) {
  await withTenant(t.db, tenantId, (tx) => tx.insert(projectPackages).values({ tenantId, projectId, packageKey, active }))
}

/** How many rows of `table` the tenant has (to prove a refused call stored nothing). */
export async function countRows(t: TestBackend, tenantId: string, table: 'projects' | 'reports' | 'saved_views' | 'change_log'): Promise<number> {
  const result = await withTenant(t.db, tenantId, (tx) => tx.execute(sql`select count(*)::int as n from ${sql.identifier(table)}`))
  return Number(rowsOf<{ n: number }>(result)[0]?.n ?? 0)
}

/** A page walker: follows nextCursor until null, collecting every page's ids. */
export async function walk<T extends { id: string }>(c: TestClient, path: string, limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = []
  let pages = 0
  let after: string | null = null
  const join = path.includes('?') ? '&' : '?'
  do {
    const url: string = `${path}${join}limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ''}`
    const page: { items: T[]; nextCursor: string | null } = await body(await c.get(url))
    expect(page.items.length).toBeLessThanOrEqual(limit)
    ids.push(...page.items.map((i) => i.id))
    after = page.nextCursor
    pages++
    if (pages > 100) throw new Error('walk: too many pages')
  } while (after !== null)
  return { ids, pages }
}

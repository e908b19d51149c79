import { asc, eq } from 'drizzle-orm'
import { expect } from 'vitest'
import { memberships } from '#server/db/schema'
import { changeLog, itemActivity, itemResponses, packages, projectPackages, projects, reportItems, reports } from '#server/db/schema-reporting'
import { withTenant } from '#server/db/tenancy'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { ActivityEntry, Item, ItemResponse, Page } from '~/lib/reporting/types'
import { createMember, createTenant, show, signedInClient, uniqueSuffix, type RoleKey, type TestClient, type TestMember, type TestTenant } from './auth'
import type { TestBackend } from './backend'

/**
 * Test data for the report-item API tests (items, responses, outstanding, bulk, sync), made
 * directly in the database: projects, reports and packages carry revisions from recordChange, as
 * the real calls would store them, so the change log stays gap-free.
 */

export type SignedIn = TestClient & { member: TestMember }

export type Org = {
  tenant: TestTenant
  admin: SignedIn
  /** A read-write member: the creator of the items the tests make. */
  writer: SignedIn
  /** Another read-write member: not the creator. */
  other: SignedIn
  reader: SignedIn
  projectId: string
  reportId: string
}

export async function signedInMember(t: TestBackend, tenant: TestTenant, roleKey: RoleKey): Promise<SignedIn> {
  const member = await createMember(t.db, { tenant, roleKey })
  const c = await signedInClient(t, member)
  return Object.assign(c, { member })
}

/** An organisation with one member of each role, a project and a report. */
export async function createOrg(t: TestBackend): Promise<Org> {
  const tenant = await createTenant(t.db)
  const admin = await signedInMember(t, tenant, 'admin')
  const writer = await signedInMember(t, tenant, 'read-write')
  const other = await signedInMember(t, tenant, 'read-write')
  const reader = await signedInMember(t, tenant, 'read-only')
  const projectId = await createProject(t, admin.member)
  const reportId = await createReport(t, admin.member, projectId)
  return { tenant, admin, writer, other, reader, projectId, reportId }
}

/** Runs `work` in the member's tenant transaction with a domain context, as the backend would. */
export function asTestMember<T>(t: TestBackend, member: TestMember, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  return withTenant(t.db, member.tenant.id, (tx) => work({ tx, actor: { tenantId: member.tenant.id, userId: member.user.id, roleKey: member.roleKey }, now: t.now() }))
}

export async function createProject(t: TestBackend, member: TestMember, options: { title?: string | null; status?: 'active' | 'archived' } = {}): Promise<string> {
  return asTestMember(t, member, async (ctx) => {
    const id = crypto.randomUUID()
    const revision = await recordChange(ctx, 'Project', id, 'Created')
    const archived = options.status === 'archived'
    await ctx.tx.insert(projects).values({
      tenantId: member.tenant.id,
      id,
      title: options.title === undefined ? `Project ${uniqueSuffix()}` : options.title,
      status: options.status ?? 'active',
      archivedAt: archived ? ctx.now : null,
      createdBy: member.user.id,
      revision,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
    return id
  })
}

export async function createReport(t: TestBackend, member: TestMember, projectId: string, options: { title?: string | null; status?: 'active' | 'archived' } = {}): Promise<string> {
  return asTestMember(t, member, async (ctx) => {
    const id = crypto.randomUUID()
    const revision = await recordChange(ctx, 'Report', id, 'Created')
    const archived = options.status === 'archived'
    await ctx.tx.insert(reports).values({
      tenantId: member.tenant.id,
      id,
      projectId,
      title: options.title === undefined ? `Report ${uniqueSuffix()}` : options.title,
      status: options.status ?? 'active',
      archivedAt: archived ? ctx.now : null,
      createdBy: member.user.id,
      revision,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
    return id
  })
}

/** An organisation package; `onProject` switches it on or off for one project. */
export async function createPackage(
  t: TestBackend,
  member: TestMember,
  key: string,
  options: { active?: boolean; onProject?: { projectId: string; active: boolean } } = {},
): Promise<void> {
  await asTestMember(t, member, async (ctx) => {
    await ctx.tx.insert(packages).values({ tenantId: member.tenant.id, key, name: `Package ${key}`, active: options.active ?? true })
    if (options.onProject) {
      await ctx.tx.insert(projectPackages).values({ tenantId: member.tenant.id, projectId: options.onProject.projectId, packageKey: key, active: options.onProject.active })
    }
  })
}

export async function setMembershipStatus(t: TestBackend, member: TestMember, status: 'active' | 'suspended' | 'invited'): Promise<void> {
  await withTenant(t.db, member.tenant.id, (tx) => tx.update(memberships).set({ status }).where(eq(memberships.userId, member.user.id)))
}

// ---- Calls ----

export function patch(c: TestClient, path: string, json: unknown): Promise<Response> {
  return c.request(path, { method: 'PATCH', json })
}

export async function json<T>(response: Response, status = 200): Promise<T> {
  expect(response.status, await show(response)).toBe(status)
  return (await response.json()) as T
}

export async function createItem(c: TestClient, reportId: string, body: Record<string, unknown> = {}): Promise<Item> {
  return json<Item>(await c.post(`/api/reports/${reportId}/items`, { title: `Item ${uniqueSuffix()}`, ...body }), 201)
}

export async function getItem(c: TestClient, id: string): Promise<Item> {
  return json<Item>(await c.get(`/api/items/${id}`))
}

export async function activityOf(c: TestClient, id: string): Promise<ActivityEntry[]> {
  return (await json<{ items: ActivityEntry[] }>(await c.get(`/api/items/${id}/activity`))).items
}

export async function responsesOf(c: TestClient, id: string): Promise<ItemResponse[]> {
  return (await json<{ items: ItemResponse[] }>(await c.get(`/api/items/${id}/responses`))).items
}

/** Every page of a paged list, following `param` (after or before) until nextCursor is null. */
export async function allPages(c: TestClient, path: string, param: 'after' | 'before'): Promise<{ items: Item[]; pages: number }> {
  const items: Item[] = []
  let cursor: string | null = null
  let pages = 0
  do {
    const separator = path.includes('?') ? '&' : '?'
    const page: Page<Item> = await json<Page<Item>>(await c.get(cursor ? `${path}${separator}${param}=${encodeURIComponent(cursor)}` : path))
    items.push(...page.items)
    cursor = page.nextCursor
    pages++
  } while (cursor !== null && pages < 1000)
  return { items, pages }
}

// ---- Rows, read as the tenant ----

export async function changeLogOf(t: TestBackend, tenantId: string) {
  return withTenant(t.db, tenantId, (tx) =>
    tx
      .select({ revision: changeLog.revision, entity: changeLog.entity, entityId: changeLog.entityId, changeType: changeLog.changeType })
      .from(changeLog)
      .orderBy(asc(changeLog.revision)),
  )
}

export async function itemRow(t: TestBackend, tenantId: string, id: string) {
  const [row] = await withTenant(t.db, tenantId, (tx) =>
    tx.select({ revision: reportItems.revision, deletedAt: reportItems.deletedAt, status: reportItems.status }).from(reportItems).where(eq(reportItems.id, id)),
  )
  return row
}

export async function threadCounts(t: TestBackend, tenantId: string, itemId: string): Promise<{ responses: number; activity: number }> {
  return withTenant(t.db, tenantId, async (tx) => ({
    responses: (await tx.select({ id: itemResponses.id }).from(itemResponses).where(eq(itemResponses.itemId, itemId))).length,
    activity: (await tx.select({ id: itemActivity.id }).from(itemActivity).where(eq(itemActivity.itemId, itemId))).length,
  }))
}

import { asc, count, eq, max } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Database } from '#server/db/client'
import { memberships, tenants, users } from '#server/db/schema'
import {
  changeLog,
  itemActivity,
  itemResponses,
  packages,
  projects,
  reportItems,
  reports,
} from '#server/db/schema-reporting'
import { DEMO } from '#server/db/demo-accounts'
import { seedIfEmpty } from '#server/db/seed'
import { withTenant } from '#server/db/tenancy'
import type { DashboardFigures, Page, Project, Report } from '~/lib/reporting/types'
import { addMembership, client, createUser, expectProblem, signedInClient, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, insertActivity, insertItem, newProject, newReport, organisation, signedMember } from '#tests/helpers/reporting-a'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-03-02T09:30:00.000Z' })
})

afterAll(async () => {
  await t.close()
})

async function figures(c: TestClient): Promise<DashboardFigures> {
  return body<DashboardFigures>(await c.get('/api/dashboard'))
}

test('an organisation without items answers zeros and no activity', async () => {
  const { reader } = await organisation(t)

  expect(await figures(reader.c)).toEqual({ openCount: 0, awaitingMyConfirmationCount: 0, overdueCount: 0, assignedToMeCount: 0, recentActivity: [] })
})

test('the figures count outstanding items (not closed, not deleted); overdue is a due date before today (UTC)', async () => {
  t.now.set('2026-03-02T23:59:00.000Z')
  const { tenant, admin, writer, reader } = await organisation(t)
  const colleague = await signedMember(t, 'read-write', tenant)
  const leaver = await createUser(t.db)
  await addMembership(t.db, tenant.id, leaver.id, { status: 'suspended' })
  const report = await newReport(admin.c, (await newProject(admin.c)).id)
  const as = (userId: string) => ({ tenantId: tenant.id, userId })
  const me = writer.user.id

  await insertItem(t, as(colleague.user.id), report, { status: 'open', assigneeUserId: me, dueDate: '2026-03-01' })
  await insertItem(t, as(colleague.user.id), report, { status: 'open', assigneeUserId: colleague.user.id, dueDate: '2026-03-02' })
  await insertItem(t, as(me), report, { status: 'close_requested', assigneeUserId: colleague.user.id, dueDate: '2026-02-01' })
  await insertItem(t, as(colleague.user.id), report, { status: 'close_requested', assigneeUserId: me })
  await insertItem(t, as(me), report, { status: 'closed', assigneeUserId: me, dueDate: '2026-01-01' })
  await insertItem(t, as(me), report, { status: 'open', assigneeUserId: me, dueDate: '2026-01-01', deleted: true })
  await insertItem(t, as(me), report, { status: 'close_requested', deleted: true })
  await insertItem(t, as(reader.user.id), report, { status: 'close_requested' })
  await insertItem(t, as(admin.user.id), report, { status: 'close_requested', createdBy: null })
  await insertItem(t, as(admin.user.id), report, { status: 'close_requested' })
  await insertItem(t, as(leaver.id), report, { status: 'close_requested' })

  expect(await figures(writer.c)).toMatchObject({ openCount: 8, awaitingMyConfirmationCount: 1, overdueCount: 2, assignedToMeCount: 2 })
  expect(await figures(colleague.c)).toMatchObject({ openCount: 8, awaitingMyConfirmationCount: 1, overdueCount: 2, assignedToMeCount: 2 })
  // The admin's own item, plus the three whose creators can no longer verify (read-only, gone, suspended).
  expect(await figures(admin.c)).toMatchObject({ openCount: 8, awaitingMyConfirmationCount: 4, overdueCount: 2, assignedToMeCount: 0 })
  expect(await figures(reader.c)).toMatchObject({ openCount: 8, awaitingMyConfirmationCount: 0, overdueCount: 2, assignedToMeCount: 0 })

  t.now.set('2026-03-03T00:00:00.000Z')
  expect((await figures(writer.c)).overdueCount).toBe(3)
})

test("the figures never count another organisation's items", async () => {
  const mine = await organisation(t)
  const theirs = await organisation(t)
  const report = await newReport(theirs.admin.c, (await newProject(theirs.admin.c)).id)
  await insertItem(t, { tenantId: theirs.tenant.id, userId: theirs.writer.user.id }, report, { status: 'close_requested', dueDate: '2020-01-01' })

  expect(await figures(mine.writer.c)).toEqual({ openCount: 0, awaitingMyConfirmationCount: 0, overdueCount: 0, assignedToMeCount: 0, recentActivity: [] })
  expect((await figures(theirs.writer.c)).openCount).toBe(1)
})

test('recentActivity holds the last 10 entries of the organisation, newest first, with their item; deleted items are left out', async () => {
  const { tenant, admin, writer } = await organisation(t)
  const report = await newReport(admin.c, (await newProject(admin.c)).id)
  const first = await insertItem(t, { tenantId: tenant.id, userId: writer.user.id }, report, { title: 'Cracked tile' })
  const second = await insertItem(t, { tenantId: tenant.id, userId: writer.user.id }, report, { title: 'Loose handrail' })
  const gone = await insertItem(t, { tenantId: tenant.id, userId: writer.user.id }, report, { title: 'Deleted one', deleted: true })
  const start = Date.parse('2026-03-01T08:00:00.000Z')
  const entries: Array<{ id: string; item: typeof first; at: Date }> = []
  for (let i = 0; i < 12; i++) {
    const item = i % 2 === 0 ? first : second
    const at = new Date(start + i * 60_000)
    entries.push({ id: await insertActivity(t, tenant.id, item.id, i % 3 === 0 ? admin.user.id : writer.user.id, 'updated', at), item, at })
  }
  await insertActivity(t, tenant.id, gone.id, writer.user.id, 'deleted', new Date(start + 3_600_000))
  const other = await organisation(t)
  const otherReport = await newReport(other.admin.c, (await newProject(other.admin.c)).id)
  const foreign = await insertItem(t, { tenantId: other.tenant.id, userId: other.admin.user.id }, otherReport)
  await insertActivity(t, other.tenant.id, foreign.id, other.admin.user.id, 'created', new Date(start + 7_200_000))

  const { recentActivity } = await figures(writer.c)

  const newest = entries.slice(2).reverse()
  expect(recentActivity.map((a) => a.id)).toEqual(newest.map((e) => e.id))
  expect(recentActivity[0]).toEqual({
    id: newest[0]?.id,
    itemId: second.id,
    action: 'updated',
    actor: { id: writer.user.id, displayName: writer.user.displayName },
    changes: [{ field: 'status', from: 'open', to: 'close_requested' }],
    reason: null,
    createdAtUtc: newest[0]?.at.toISOString(),
    item: { id: second.id, number: second.number, title: 'Loose handrail' },
  })
  expect(recentActivity.find((a) => a.actor?.id === admin.user.id)?.actor).toEqual({ id: admin.user.id, displayName: admin.user.displayName })
})

test('without a session the dashboard answers 401', async () => {
  await expectProblem(await client(t).get('/api/dashboard'), 401, 'KR_UNAUTHENTICATED')
})

/** The first seedIfEmpty of this file's database, whichever test asks first. */
let firstSeed: Promise<boolean> | undefined
function seedOnce(): Promise<boolean> {
  firstSeed ??= seedIfEmpty(t.db)
  return firstSeed
}

async function tenantBySlug(db: Database, slug: string): Promise<string> {
  const [row] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.slug, slug))
  if (!row) throw new Error(`no tenant ${slug}`)
  return row.id
}

async function seededCounts(tenantId: string) {
  return withTenant(t.db, tenantId, async (tx) => ({
    packages: (await tx.select({ n: count() }).from(packages))[0]?.n,
    projects: (await tx.select({ n: count() }).from(projects))[0]?.n,
    reports: (await tx.select({ n: count() }).from(reports))[0]?.n,
    items: (await tx.select({ n: count() }).from(reportItems))[0]?.n,
    changes: (await tx.select({ n: count() }).from(changeLog))[0]?.n,
  }))
}

test('seedIfEmpty on a fresh database seeds coherent reporting data for both organisations; a second call does nothing', async () => {
  expect(await seedOnce()).toBe(true)
  const demo = await tenantBySlug(t.db, DEMO.tenant.slug)
  const northwind = await tenantBySlug(t.db, DEMO.otherTenant.slug)
  const demoCounts = await seededCounts(demo)
  const otherCounts = await seededCounts(northwind)

  expect(demoCounts).toMatchObject({ packages: 12, projects: 3, reports: 5, items: 13 })
  expect(otherCounts).toMatchObject({ packages: 12, projects: 1, reports: 1, items: 2 })
  expect(await seedIfEmpty(t.db)).toBe(false)
  expect(await seededCounts(demo)).toEqual(demoCounts)
  expect(await seededCounts(northwind)).toEqual(otherCounts)

  for (const tenantId of [demo, northwind]) {
    await withTenant(t.db, tenantId, async (tx) => {
      // A gap-free change log, and every row carries the revision of its own last change.
      const log = await tx.select({ revision: changeLog.revision }).from(changeLog).orderBy(asc(changeLog.revision))
      expect(log.map((r) => r.revision)).toEqual(log.map((_, i) => i + 1))
      const latest = new Map(
        (await tx.select({ entityId: changeLog.entityId, revision: max(changeLog.revision) }).from(changeLog).groupBy(changeLog.entityId)).map((r) => [r.entityId, r.revision]),
      )
      const rows = [
        ...(await tx.select({ id: projects.id, revision: projects.revision }).from(projects)),
        ...(await tx.select({ id: reports.id, revision: reports.revision }).from(reports)),
        ...(await tx.select({ id: reportItems.id, revision: reportItems.revision }).from(reportItems)),
      ]
      for (const row of rows) expect(row.revision).toBe(latest.get(row.id))
      expect(latest.size).toBe(rows.length)

      // Items numbered 1..n; each status agrees with its thread and its activity.
      const items = await tx.select().from(reportItems).orderBy(asc(reportItems.number))
      expect(items.map((i) => i.number)).toEqual(items.map((_, i) => i + 1))
      for (const item of items) {
        const activity = await tx.select().from(itemActivity).where(eq(itemActivity.itemId, item.id)).orderBy(asc(itemActivity.createdAt))
        const thread = await tx.select().from(itemResponses).where(eq(itemResponses.itemId, item.id)).orderBy(asc(itemResponses.createdAt))
        expect(activity[0]?.action).toBe('created')
        const statusChanges = activity.flatMap((a) => a.changes.filter((c) => c.field === 'status'))
        expect(statusChanges.at(-1)?.to ?? 'open', item.title).toBe(item.status)
        if (item.status === 'closed') {
          expect(item.closedAt).not.toBeNull()
          expect(item.closedBy).not.toBeNull()
          expect(thread.at(-1)?.kind).toBe('close_confirmed')
        } else {
          expect(item.closedAt).toBeNull()
        }
        if (item.status === 'close_requested') expect(thread.at(-1)?.requestClose).toBe(true)
        expect(item.createdAt.getTime()).toBeLessThanOrEqual(item.updatedAt.getTime())
      }
    })
  }

  const projectRows = await withTenant(t.db, demo, (tx) => tx.select({ title: projects.title, status: projects.status }).from(projects))
  expect(projectRows.some((p) => p.title === null)).toBe(true)
  expect(projectRows.some((p) => p.status === 'archived')).toBe(true)
})

test('the seeded demo user sees the seeded projects, reports and dashboard figures through the API', async () => {
  await seedOnce()
  const demo = await tenantBySlug(t.db, DEMO.tenant.slug)
  const [sam] = await t.db.select({ id: users.id }).from(users).where(eq(users.email, DEMO.user.email))
  const [alex] = await t.db.select({ id: users.id }).from(users).where(eq(users.email, DEMO.admin.email))
  if (!sam || !alex) throw new Error('seeded users missing')
  const [membership] = await withTenant(t.db, demo, (tx) => tx.select({ roleKey: memberships.roleKey }).from(memberships).where(eq(memberships.userId, sam.id)))
  expect(membership?.roleKey).toBe('read-write')
  t.now.set(Date.now())
  const samClient = await signedInClient(t, { user: sam, tenant: { id: demo } })
  const alexClient = await signedInClient(t, { user: alex, tenant: { id: demo } })

  const active = await body<Page<Project>>(await samClient.get('/api/projects'))
  const all = await body<Page<Project>>(await samClient.get('/api/projects?status=all'))
  const seededReports = await body<Page<Report>>(await samClient.get('/api/reports?status=all'))

  expect(active.items.map((p) => p.title)).toContain(null)
  expect(active.items).toHaveLength(2)
  expect(all.items).toHaveLength(3)
  const totals = seededReports.items.reduce((sum, r) => sum + r.itemCounts.open + r.itemCounts.closeRequested + r.itemCounts.closed, 0)
  expect(totals).toBe(13)
  expect(await figures(samClient)).toMatchObject({ openCount: 9, awaitingMyConfirmationCount: 2, overdueCount: 5, assignedToMeCount: 6 })
  const forAlex = await figures(alexClient)
  expect(forAlex).toMatchObject({ openCount: 9, awaitingMyConfirmationCount: 1, overdueCount: 5, assignedToMeCount: 2 })
  expect(forAlex.recentActivity).toHaveLength(10)
  expect((await body<{ items: unknown[] }>(await samClient.get('/api/packages'))).items).toHaveLength(12)
})

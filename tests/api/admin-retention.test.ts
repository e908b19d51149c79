import { and, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { reportItems, reports } from '#server/db/schema-reporting'
import { rowsOf, withTenant } from '#server/db/tenancy'
import { RETENTION_SPACING_MS, runRetentionPass } from '#server/domain/config/retention'
import type { RetentionHealth, RetentionPolicy } from '~/lib/schemas/admin-retention'
import type { Report } from '~/lib/reporting/types'
import { auditOf, expectProblem, signedInClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, changeLogOf, insertActivity, insertItem, newProject, newReport, organisation, put } from '#tests/helpers/reporting-a'

/** docs/admin/shell-and-retention.md "Retention": the policy, its health and the daily pass, with a moved clock. */

const DAY = 24 * 60 * 60_000
let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-03-02T08:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

async function itemsOf(tenantId: string) {
  return withTenant(t.db, tenantId, (tx) => tx.select({ id: reportItems.id, archivedAt: reportItems.archivedAt }).from(reportItems))
}

async function activityCount(tenantId: string, itemId: string): Promise<number> {
  const result = await withTenant(t.db, tenantId, (tx) => tx.execute(sql`select count(*)::int as n from item_activity where item_id = ${itemId}`))
  return Number(rowsOf<{ n: number }>(result)[0]?.n ?? 0)
}

test('only administrators read and change the policy and its health; another organisation has its own', async () => {
  const { admin, writer, reader } = await organisation(t)
  for (const member of [writer, reader]) {
    await expectProblem(await member.c.get('/api/admin/retention'), 403, 'KR_FORBIDDEN')
    await expectProblem(await member.c.get('/api/admin/retention/health'), 403, 'KR_FORBIDDEN')
    await expectProblem(await put(member.c, '/api/admin/retention', { enabled: true, archiveAfterDays: 10, purgeAfterDays: 20 }), 403, 'KR_FORBIDDEN')
  }
  const initial = await body<RetentionPolicy>(await admin.c.get('/api/admin/retention'))
  expect(initial).toEqual({ enabled: false, archiveAfterDays: 365, purgeAfterDays: 2555, lastRunAtUtc: null, updatedAtUtc: null, revision: 0 })
  const saved = await body<RetentionPolicy>(await put(admin.c, '/api/admin/retention', { enabled: true, archiveAfterDays: 10, purgeAfterDays: 20 }))
  expect(saved).toMatchObject({ enabled: true, archiveAfterDays: 10, purgeAfterDays: 20, updatedAtUtc: t.now().toISOString(), revision: 1 })

  const other = await organisation(t)
  expect(await body<RetentionPolicy>(await other.admin.c.get('/api/admin/retention'))).toMatchObject({ enabled: false, archiveAfterDays: 365 })
  const audit = await auditOf(t.db, { action: 'admin.retention.changed', tenantId: admin.tenant.id })
  expect(audit).toHaveLength(1)
  expect(audit[0]).toMatchObject({
    actorUserId: admin.user.id,
    data: { from: { enabled: false, archiveAfterDays: 365, purgeAfterDays: 2555 }, to: { enabled: true, archiveAfterDays: 10, purgeAfterDays: 20 } },
  })
  expect(await auditOf(t.db, { action: 'admin.retention.changed', tenantId: other.tenant.id })).toEqual([])
})

test('a policy out of range is refused with field errors and nothing changes', async () => {
  const { admin } = await organisation(t)
  const cases: Array<[unknown, string]> = [
    [{ enabled: true, archiveAfterDays: 0, purgeAfterDays: 20 }, 'archiveAfterDays'],
    [{ enabled: true, archiveAfterDays: 3651, purgeAfterDays: 4000 }, 'archiveAfterDays'],
    [{ enabled: true, archiveAfterDays: 1.5, purgeAfterDays: 20 }, 'archiveAfterDays'],
    [{ enabled: true, archiveAfterDays: 30, purgeAfterDays: 30 }, 'purgeAfterDays'],
    [{ enabled: true, archiveAfterDays: 30, purgeAfterDays: 36501 }, 'purgeAfterDays'],
    [{ enabled: 'yes', archiveAfterDays: 30, purgeAfterDays: 60 }, 'enabled'],
    [{ archiveAfterDays: 30, purgeAfterDays: 60 }, 'enabled'],
  ]
  for (const [json, field] of cases) {
    const problem = await expectProblem(await put(admin.c, '/api/admin/retention', json), 400, 'KR_VALIDATION')
    expect(Object.keys(problem.errors ?? {}), JSON.stringify(json)).toContain(field)
  }
  expect(await body<RetentionPolicy>(await admin.c.get('/api/admin/retention'))).toMatchObject({ enabled: false, updatedAtUtc: null })
})

test('the daily pass archives closed items after N days and purges them after M, with archived reports; health before and after', async () => {
  t.now.reset()
  const { admin, writer, tenant } = await organisation(t)
  const project = await newProject(writer.c)
  const report = await newReport(writer.c, project.id)
  const closedAt = t.now()
  const closed = await insertItem(t, { tenantId: tenant.id, userId: writer.user.id }, report, { status: 'closed' })
  const closedToo = await insertItem(t, { tenantId: tenant.id, userId: writer.user.id }, report, { status: 'closed' })
  const open = await insertItem(t, { tenantId: tenant.id, userId: writer.user.id }, report, { status: 'open' })
  await insertActivity(t, tenant.id, closed.id, writer.user.id, 'closed', closedAt)
  // An archived report with no items: purged M days after it was archived.
  const emptyReport = await newReport(writer.c, project.id)
  await body<Report>(await admin.c.post(`/api/reports/${emptyReport.id}/archive`))

  // Sessions expire as the clock moves: each read signs in afresh at the moment it reads.
  const health = async () => body<RetentionHealth>(await (await signedInClient(t, admin)).get('/api/admin/retention/health'))
  // The policy is off: nothing is due, and the pass leaves the organisation alone.
  expect(await health()).toEqual({ activeCount: 3, archivedCount: 0, purgedCount: 0, dueCount: 0, nextDueAtUtc: null })
  t.now.advance(400 * DAY)
  expect((await runRetentionPass(t.db, t.now())).find((r) => r.tenantId === tenant.id)).toBeUndefined()
  t.now.reset()

  await body<RetentionPolicy>(await put(admin.c, '/api/admin/retention', { enabled: true, archiveAfterDays: 30, purgeAfterDays: 90 }))
  expect(await health()).toEqual({
    activeCount: 3,
    archivedCount: 0,
    purgedCount: 0,
    dueCount: 0,
    nextDueAtUtc: new Date(closedAt.getTime() + 30 * DAY).toISOString(),
  })

  // Day 31: both closed items are due for archiving; the pass archives them (the open one stays).
  t.now.advance(31 * DAY)
  expect(await health()).toMatchObject({ activeCount: 3, archivedCount: 0, dueCount: 2 })
  const first = (await runRetentionPass(t.db, t.now())).find((r) => r.tenantId === tenant.id)
  expect(first).toEqual({ tenantId: tenant.id, archived: 2, purgedItems: 0, purgedReports: 0 })
  const archivedNow = await itemsOf(tenant.id)
  expect(
    archivedNow
      .filter((i) => i.archivedAt !== null)
      .map((i) => i.id)
      .sort(),
  ).toEqual([closed.id, closedToo.id].sort())
  expect(await health()).toEqual({
    activeCount: 1,
    archivedCount: 2,
    purgedCount: 0,
    dueCount: 0,
    nextDueAtUtc: new Date(closedAt.getTime() + 90 * DAY).toISOString(),
  })
  expect(await body<RetentionPolicy>(await (await signedInClient(t, admin)).get('/api/admin/retention'))).toMatchObject({ lastRunAtUtc: t.now().toISOString() })

  // The job looks hourly and at every start: a pass under a day after the last leaves the
  // organisation alone (an item just archived is not purged by a restart), one a day after serves it.
  const lastRun = t.now().toISOString()
  t.now.advance(RETENTION_SPACING_MS - 60_000)
  expect((await runRetentionPass(t.db, t.now())).find((r) => r.tenantId === tenant.id)).toBeUndefined()
  expect(await body<RetentionPolicy>(await (await signedInClient(t, admin)).get('/api/admin/retention'))).toMatchObject({ lastRunAtUtc: lastRun })
  t.now.advance(60_000)
  expect((await runRetentionPass(t.db, t.now())).find((r) => r.tenantId === tenant.id)).toEqual({ tenantId: tenant.id, archived: 0, purgedItems: 0, purgedReports: 0 })

  // Day 91: the archived items and the empty archived report are purged, by one of two instances at once.
  t.now.set(closedAt.getTime() + 91 * DAY)
  expect(await health()).toMatchObject({ dueCount: 3 })
  const before = (await changeLogOf(t, tenant.id)).at(-1)?.revision ?? 0
  const passes = await Promise.all([runRetentionPass(t.db, t.now()), runRetentionPass(t.db, t.now())])
  const runs = passes.flat().filter((r) => r.tenantId === tenant.id)
  expect(runs.reduce((n, r) => n + r.purgedItems, 0)).toBe(2)
  expect(runs.reduce((n, r) => n + r.purgedReports, 0)).toBe(1)
  expect((await itemsOf(tenant.id)).map((i) => i.id)).toEqual([open.id])
  expect(await activityCount(tenant.id, closed.id)).toBe(0)
  const gone = await withTenant(t.db, tenant.id, (tx) =>
    tx
      .select({ id: reports.id })
      .from(reports)
      .where(and(eq(reports.tenantId, tenant.id), eq(reports.id, emptyReport.id))),
  )
  expect(gone).toEqual([])
  expect(await health()).toEqual({ activeCount: 1, archivedCount: 0, purgedCount: 3, dueCount: 0, nextDueAtUtc: null })

  // Sync clients drop them: Deleted entries for the items and the report, and the report that kept an item reads again.
  const changes = (await changeLogOf(t, tenant.id)).filter((c) => c.revision > before)
  expect(
    changes
      .filter((c) => c.changeType === 'Deleted')
      .map((c) => c.entityId)
      .sort(),
  ).toEqual([closed.id, closedToo.id, emptyReport.id].sort())
  expect(changes).toContainEqual(expect.objectContaining({ entity: 'Report', entityId: report.id, changeType: 'Updated' }))
  const items = await body<{ items: Array<{ id: string }> }>(await (await signedInClient(t, writer)).get(`/api/reports/${report.id}/items`))
  expect(items.items.map((i) => i.id)).toEqual([open.id])

  const ran = await auditOf(t.db, { action: 'admin.retention.ran', tenantId: tenant.id })
  expect(ran.map((a) => a.data)).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ archived: 2, purgedItems: 0, purgedReports: 0 }),
      expect.objectContaining({ archived: 0, purgedItems: 2, purgedReports: 1 }),
    ]),
  )
})

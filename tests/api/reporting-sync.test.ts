import { afterAll, beforeAll, expect, test } from 'vitest'
import { projects } from '#server/db/schema-reporting'
import { recordChange } from '#server/domain/reporting/change-log'
import type { SyncChanges, SyncSnapshot } from '#server/domain/reporting/sync'
import type { Item, Project, Report } from '~/lib/reporting/types'
import { createMember, expectProblem, signedInClient, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { asTestMember, changeLogOf, createItem, createOrg, createProject, json, patch } from '#tests/helpers/reporting-b'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2025-03-10T08:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

const DAY_MS = 24 * 60 * 60_000

async function changesAfter(c: TestClient, cursor: string, path = '/api/sync/changes'): Promise<SyncChanges> {
  return json<SyncChanges>(await c.get(`${path}?cursor=${encodeURIComponent(cursor)}`))
}

test('without a cursor: a snapshot of projects, reports and live items, and the current revision as cursor', async () => {
  const org = await createOrg(t)
  const kept = await createItem(org.writer, org.reportId, { title: 'Kept' })
  const gone = await createItem(org.writer, org.reportId)
  expect((await org.writer.delete(`/api/items/${gone.id}`)).status).toBe(204)
  const archived = await createProject(t, org.admin.member, { status: 'archived', title: null })

  const answer = await json<SyncSnapshot>(await org.reader.get('/api/sync/changes'))
  const log = await changeLogOf(t, org.tenant.id)
  expect(answer.cursor).toEqual({ value: String(log.at(-1)?.revision), expiresAtUtc: new Date(t.now().getTime() + DAY_MS).toISOString() })
  expect(answer.snapshot.projects.map((p) => [p.id, p.status, p.title === null])).toEqual(
    expect.arrayContaining([
      [org.projectId, 'active', false],
      [archived, 'archived', true],
    ]),
  )
  expect(answer.snapshot.projects).toHaveLength(2)
  expect(answer.snapshot.reports).toHaveLength(1)
  expect(answer.snapshot.reports[0]).toMatchObject({ id: org.reportId, projectId: org.projectId, itemCounts: { open: 1, closeRequested: 0, closed: 0 }, createdBy: { id: org.admin.member.user.id } })
  expect(answer.snapshot.reportItems).toEqual([await json<Item>(await org.reader.get(`/api/items/${kept.id}`))])

  const mobile = await json<SyncSnapshot>(await org.reader.get('/api/sync/changes-mobile'))
  expect(mobile).toEqual(answer)
})

test('after a cursor: the changes in revision order with their data, Deleted with data null, and a cursor that moves', async () => {
  const org = await createOrg(t)
  const start = (await json<SyncSnapshot>(await org.reader.get('/api/sync/changes'))).cursor.value
  const item = await createItem(org.writer, org.reportId)
  const edited = await json<Item>(await patch(org.other, `/api/items/${item.id}`, { title: 'Renamed' }))
  const doomed = await createItem(org.writer, org.reportId)
  expect((await org.writer.delete(`/api/items/${doomed.id}`)).status).toBe(204)
  const projectId = await createProject(t, org.admin.member)

  const answer = await changesAfter(org.reader, start)
  expect(answer.hasMore).toBe(false)
  const first = Number(start) + 1
  expect(answer.changes.map((c) => [c.revision, c.entity, c.changeType, c.entityId])).toEqual([
    [first, 'ReportItem', 'Created', item.id],
    [first + 1, 'ReportItem', 'Updated', item.id],
    [first + 2, 'ReportItem', 'Created', doomed.id],
    [first + 3, 'ReportItem', 'Deleted', doomed.id],
    [first + 4, 'Project', 'Created', projectId],
  ])
  // Data is the entity as it is now: the edited item, nothing for a deleted one.
  expect(answer.changes[0]?.data).toEqual(edited)
  expect(answer.changes[1]?.data).toEqual(edited)
  expect(answer.changes[2]?.data).toBeNull()
  expect(answer.changes[3]?.data).toBeNull()
  expect((answer.changes[4]?.data as Project).id).toBe(projectId)
  expect(answer.cursor.value).toBe(String(first + 4))
  expect(answer.cursor.expiresAtUtc).toBe(new Date(t.now().getTime() + DAY_MS).toISOString())

  // Nothing new: no changes, the same cursor.
  const idle = await changesAfter(org.reader, answer.cursor.value)
  expect(idle).toEqual({ changes: [], cursor: answer.cursor, hasMore: false })
  expect(await changesAfter(org.reader, start, '/api/sync/changes-mobile')).toEqual(answer)
})

test('report changes carry the Report with its item counts', async () => {
  const org = await createOrg(t)
  const log = await changeLogOf(t, org.tenant.id)
  const answer = await changesAfter(org.reader, '0')
  expect(answer.changes.map((c) => c.revision)).toEqual(log.map((l) => l.revision))
  const report = answer.changes.find((c) => c.entity === 'Report')?.data as Report
  expect(report).toMatchObject({ id: org.reportId, projectId: org.projectId, status: 'active', itemCounts: { open: 0, closeRequested: 0, closed: 0 } })
})

test('changes come 500 at a time, with hasMore until the end', async () => {
  const org = await createOrg(t)
  const start = (await json<SyncSnapshot>(await org.reader.get('/api/sync/changes'))).cursor.value
  await asTestMember(t, org.admin.member, async (ctx) => {
    let revision = 0
    for (let i = 0; i < 520; i++) revision = await recordChange(ctx, 'Project', org.projectId, 'Updated')
    await ctx.tx.update(projects).set({ revision })
  })
  const page1 = await changesAfter(org.reader, start)
  expect(page1.changes).toHaveLength(500)
  expect(page1.hasMore).toBe(true)
  expect(page1.cursor.value).toBe(String(Number(start) + 500))
  const page2 = await changesAfter(org.reader, page1.cursor.value)
  expect(page2.changes).toHaveLength(20)
  expect(page2.hasMore).toBe(false)
  expect(page2.changes.at(-1)?.revision).toBe(Number(start) + 520)
  expect((page2.changes.at(-1)?.data as Project).revision).toBe(Number(start) + 520)
})

test.each([['abc'], ['-1'], ['1.5'], ['1e3'], [' 1'], ['99999999999999999999']])('a cursor that is not a revision of this tenant answers 410 KR_SYNC_CURSOR_STALE (%j)', async (cursor) => {
  const org = await createOrg(t)
  const problem = await expectProblem(await org.reader.get(`/api/sync/changes?cursor=${encodeURIComponent(cursor)}`), 410, 'KR_SYNC_CURSOR_STALE')
  expect(problem.remediation).toBeDefined()
  await expectProblem(await org.reader.get(`/api/sync/changes-mobile?cursor=${encodeURIComponent(cursor)}`), 410, 'KR_SYNC_CURSOR_STALE')
})

test("a cursor past this tenant's revision is stale, even when another tenant has reached it; tenants never see each other", async () => {
  const busy = await createOrg(t)
  const quiet = await createOrg(t)
  for (let i = 0; i < 3; i++) await createItem(busy.writer, busy.reportId)
  const busyCursor = (await json<SyncSnapshot>(await busy.reader.get('/api/sync/changes'))).cursor.value
  const quietCursor = (await json<SyncSnapshot>(await quiet.reader.get('/api/sync/changes'))).cursor.value
  expect(Number(busyCursor)).toBeGreaterThan(Number(quietCursor))
  await expectProblem(await quiet.reader.get(`/api/sync/changes?cursor=${busyCursor}`), 410, 'KR_SYNC_CURSOR_STALE')
  await expectProblem(await quiet.reader.get(`/api/sync/changes?cursor=${Number(quietCursor) + 1}`), 410, 'KR_SYNC_CURSOR_STALE')

  const everything = await changesAfter(quiet.reader, '0')
  const ids = new Set(everything.changes.map((c) => c.entityId))
  expect(ids).toEqual(new Set([quiet.projectId, quiet.reportId]))
  const snapshot = await json<SyncSnapshot>(await quiet.reader.get('/api/sync/changes'))
  expect(snapshot.snapshot.reportItems).toEqual([])
  expect(snapshot.snapshot.projects.map((p) => p.id)).toEqual([quiet.projectId])
})

test('an organisation with no changes yet syncs from revision 0', async () => {
  const fresh = await signedInClient(t, await createMember(t.db))
  const answer = await json<SyncSnapshot>(await fresh.get('/api/sync/changes'))
  expect(answer).toMatchObject({ snapshot: { projects: [], reports: [], reportItems: [] }, cursor: { value: '0' } })
  expect(await changesAfter(fresh, '0')).toMatchObject({ changes: [], hasMore: false, cursor: { value: '0' } })
  await expectProblem(await fresh.get('/api/sync/changes?cursor=1'), 410, 'KR_SYNC_CURSOR_STALE')
})

test('sync needs a signed-in member', async () => {
  await expectProblem(await t.fetch('/api/sync/changes', { headers: { accept: 'application/json' } }), 401)
  await expectProblem(await t.fetch('/api/sync/changes-mobile?cursor=0', { headers: { accept: 'application/json' } }), 401)
})

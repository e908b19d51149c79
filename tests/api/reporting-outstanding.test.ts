import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Item, Page } from '~/lib/reporting/types'
import { expectProblem, signedInClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { allPages, createItem, createOrg, createPackage, createProject, createReport, json, type Org } from '#tests/helpers/reporting-b'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2025-03-10T08:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

const tick = () => t.now.advance(1000)

async function numbersOf(c: Org['reader'], query: string): Promise<number[]> {
  return (await allPages(c, `/api/items/outstanding?limit=100${query}`, 'before')).items.map((i) => i.number)
}

test('paging walks every outstanding item exactly once, newest first; closed and deleted never appear', async () => {
  const org = await createOrg(t)
  const items: Item[] = []
  for (let i = 0; i < 23; i++) {
    // Several items per millisecond too: the id breaks ties, so nothing is skipped or repeated.
    if (i % 3 === 0) tick()
    items.push(await createItem(org.writer, org.reportId))
  }
  const [closed, deleted, requested] = [items[4], items[9], items[14]] as [Item, Item, Item]
  expect((await org.writer.post(`/api/items/${closed.id}/confirm-close`, { confirmed: true })).status).toBe(200)
  expect((await org.writer.delete(`/api/items/${deleted.id}`)).status).toBe(204)
  expect((await org.other.post(`/api/items/${requested.id}/responses`, { body: 'Done', requestClose: true })).status).toBe(201)

  const { items: walked, pages } = await allPages(org.reader, '/api/items/outstanding?limit=5', 'before')
  expect(pages).toBe(5)
  expect(walked).toHaveLength(21)
  expect(new Set(walked.map((i) => i.id)).size).toBe(21)
  const ids = walked.map((i) => i.id)
  expect(ids).not.toContain(closed.id)
  expect(ids).not.toContain(deleted.id)
  expect(walked.find((i) => i.id === requested.id)?.status).toBe('close_requested')
  const keys = walked.map((i) => `${i.createdAtUtc}|${i.id}`)
  expect(keys).toEqual([...keys].sort().reverse())

  // The default page is 25 and the last page says so with a null cursor.
  const first = await json<Page<Item>>(await org.reader.get('/api/items/outstanding'))
  expect(first.items).toHaveLength(21)
  expect(first.nextCursor).toBeNull()
})

test('items recorded while someone pages appear on a fresh walk, never as a repeat', async () => {
  const org = await createOrg(t)
  for (let i = 0; i < 6; i++) {
    tick()
    await createItem(org.writer, org.reportId)
  }
  const first = await json<Page<Item>>(await org.reader.get('/api/items/outstanding?limit=3'))
  tick()
  const fresh = await createItem(org.writer, org.reportId)
  const second = await json<Page<Item>>(await org.reader.get(`/api/items/outstanding?limit=3&before=${first.nextCursor}`))
  expect([...first.items, ...second.items].map((i) => i.number)).toEqual([6, 5, 4, 3, 2, 1])
  expect((await json<Page<Item>>(await org.reader.get('/api/items/outstanding?limit=1'))).items[0]?.id).toBe(fresh.id)
})

test('filters: project, report, package, status, assignee and overdue, alone and together', async () => {
  const org = await createOrg(t)
  const projectB = await createProject(t, org.admin.member)
  const reportB = await createReport(t, org.admin.member, projectB)
  const reportA2 = await createReport(t, org.admin.member, org.projectId)
  await createPackage(t, org.admin.member, 'mep')
  const today = t.now().toISOString().slice(0, 10)
  const make = async (reportId: string, body: Record<string, unknown>) => {
    tick()
    return (await createItem(org.writer, reportId, body)).number
  }
  const n1 = await make(org.reportId, { packageKey: 'mep', assigneeUserId: org.other.member.user.id, dueDate: '2020-01-01' })
  const n2 = await make(org.reportId, { dueDate: today })
  const n3 = await make(reportA2, { packageKey: 'mep' })
  const n4 = await make(reportB, { assigneeUserId: org.other.member.user.id, dueDate: '2020-06-01' })
  const n5 = await make(reportB, { packageKey: 'mep' })
  tick()
  const closedOverdue = await createItem(org.writer, reportB, { dueDate: '2020-01-01' })
  expect((await org.writer.post(`/api/items/${closedOverdue.id}/confirm-close`, { confirmed: true })).status).toBe(200)
  tick()
  const requested = await createItem(org.writer, reportB)
  expect((await org.other.post(`/api/items/${requested.id}/responses`, { body: 'Done', requestClose: true })).status).toBe(201)

  const c = org.reader
  expect(await numbersOf(c, '')).toEqual([requested.number, n5, n4, n3, n2, n1])
  expect(await numbersOf(c, `&projectId=${org.projectId}`)).toEqual([n3, n2, n1])
  expect(await numbersOf(c, `&projectId=${projectB}`)).toEqual([requested.number, n5, n4])
  expect(await numbersOf(c, `&reportId=${org.reportId}`)).toEqual([n2, n1])
  expect(await numbersOf(c, '&packageKey=mep')).toEqual([n5, n3, n1])
  expect(await numbersOf(c, '&status=close_requested')).toEqual([requested.number])
  expect(await numbersOf(c, '&status=open')).toEqual([n5, n4, n3, n2, n1])
  expect(await numbersOf(c, `&assigneeUserId=${org.other.member.user.id}`)).toEqual([n4, n1])
  expect(await numbersOf(c, '&overdue=true')).toEqual([n4, n1])
  expect(await numbersOf(c, '&overdue=false')).toEqual([requested.number, n5, n3, n2])
  expect(await numbersOf(c, `&projectId=${org.projectId}&packageKey=mep&overdue=true`)).toEqual([n1])
  // Paging works with a filter on, too.
  expect((await allPages(c, `/api/items/outstanding?limit=1&projectId=${projectB}`, 'before')).items.map((i) => i.number)).toEqual([requested.number, n5, n4])
  // Empty query values (an HTML form's "any") mean no filter.
  expect(await numbersOf(c, '&projectId=&status=&overdue=&packageKey=')).toEqual([requested.number, n5, n4, n3, n2, n1])
})

test.each([
  ['projectId', 'projectId=abc'],
  ['reportId', 'reportId=123'],
  ['assigneeUserId', 'assigneeUserId=me'],
  ['status', 'status=closed'],
  ['status', 'status=done'],
  ['overdue', 'overdue=yes'],
  ['overdue', 'overdue=1'],
  ['limit', 'limit=0'],
  ['limit', 'limit=101'],
  ['limit', 'limit=2.5'],
  ['before', 'before=not-a-cursor'],
])('an invalid %s answers 400 naming it (%s)', async (field, query) => {
  const org = await createOrg(t)
  const problem = await expectProblem(await org.reader.get(`/api/items/outstanding?${query}`), 400, 'KR_VALIDATION')
  expect(Object.keys(problem.errors ?? {})).toEqual([field])
})

test("another tenant's items never appear, even when filtering by its ids", async () => {
  const org = await createOrg(t)
  const theirs = await createOrg(t)
  await createItem(theirs.writer, theirs.reportId)
  await createItem(org.writer, org.reportId)
  expect((await allPages(org.admin, '/api/items/outstanding', 'before')).items.map((i) => i.projectId)).toEqual([org.projectId])
  for (const query of [`projectId=${theirs.projectId}`, `reportId=${theirs.reportId}`, `assigneeUserId=${theirs.writer.member.user.id}`]) {
    expect((await json<Page<Item>>(await org.admin.get(`/api/items/outstanding?${query}`))).items).toEqual([])
  }
})

test('the list needs a signed-in member; every role may read it', async () => {
  const org = await createOrg(t)
  await createItem(org.writer, org.reportId)
  for (const member of [org.admin.member, org.writer.member, org.reader.member]) {
    const c = await signedInClient(t, member)
    expect((await json<Page<Item>>(await c.get('/api/items/outstanding'))).items).toHaveLength(1)
  }
  await expectProblem(await t.fetch('/api/items/outstanding', { headers: { accept: 'application/json' } }), 401)
})

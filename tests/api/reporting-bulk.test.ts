import { afterAll, beforeAll, expect, test } from 'vitest'
import type { BulkResult, Item } from '~/lib/reporting/types'
import { createMember, expectProblem } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import {
  activityOf,
  changeLogOf,
  createItem,
  createOrg,
  createPackage,
  createProject,
  createReport,
  getItem,
  itemRow,
  json,
  responsesOf,
  setMembershipStatus,
  signedInMember,
} from '#tests/helpers/reporting-b'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2025-03-10T08:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

const UNKNOWN_ID = '6f1c0d6e-8d1b-4c53-9a43-1d1e2f3a4b5c'

test('assign: every item gets the assignee, its own activity entry and its own change-log entry', async () => {
  const org = await createOrg(t)
  const items = [await createItem(org.writer, org.reportId), await createItem(org.other, org.reportId), await createItem(org.admin, org.reportId)]
  const before = await changeLogOf(t, org.tenant.id)
  const result = await json<BulkResult>(await org.other.post('/api/items/bulk', { ids: items.map((i) => i.id), action: 'assign', assigneeUserId: org.reader.member.user.id }))
  expect(result.results).toEqual(items.map((i) => ({ id: i.id, ok: true })))
  for (const item of items) {
    expect((await getItem(org.reader, item.id)).assignee?.id).toBe(org.reader.member.user.id)
    expect((await activityOf(org.reader, item.id)).at(-1)).toMatchObject({ action: 'updated', actor: { id: org.other.member.user.id }, changes: [{ field: 'assignee', from: null }] })
  }
  const after = await changeLogOf(t, org.tenant.id)
  expect(after.slice(before.length).map((l) => [l.entityId, l.changeType])).toEqual(items.map((i) => [i.id, 'Updated']))

  // null unassigns.
  const cleared = await json<BulkResult>(await org.writer.post('/api/items/bulk', { ids: [items[0]?.id], action: 'assign', assigneeUserId: null }))
  expect(cleared.results).toEqual([{ id: items[0]?.id, ok: true }])
  expect((await getItem(org.reader, items[0]?.id ?? '')).assignee).toBeNull()
})

test("each id gets its own result: another tenant's and unknown ids are not found, the others still happen", async () => {
  const org = await createOrg(t)
  const theirs = await createOrg(t)
  const mine = await createItem(org.writer, org.reportId)
  const their = await createItem(theirs.writer, theirs.reportId)
  const gone = await createItem(org.writer, org.reportId)
  expect((await org.writer.delete(`/api/items/${gone.id}`)).status).toBe(204)
  const result = await json<BulkResult>(
    await org.admin.post('/api/items/bulk', { ids: [their.id, mine.id, UNKNOWN_ID, gone.id, mine.id], action: 'request-close', body: 'All done' }),
  )
  expect(result.results).toEqual([
    { id: their.id, ok: false, error: 'KR_NOT_FOUND' },
    { id: mine.id, ok: true },
    { id: UNKNOWN_ID, ok: false, error: 'KR_NOT_FOUND' },
    { id: gone.id, ok: false, error: 'KR_NOT_FOUND' },
  ])
  expect((await getItem(org.reader, mine.id)).status).toBe('close_requested')
  expect((await responsesOf(org.reader, mine.id)).map((r) => [r.body, r.requestClose])).toEqual([['All done', true]])
  expect(await getItem(theirs.writer, their.id)).toEqual(their)
  expect(await responsesOf(theirs.writer, their.id)).toEqual([])
})

test('delete: only the items the caller may delete go; admins may delete any', async () => {
  const org = await createOrg(t)
  const own = await createItem(org.writer, org.reportId)
  const others = await createItem(org.other, org.reportId)
  const result = await json<BulkResult>(await org.writer.post('/api/items/bulk', { ids: [own.id, others.id], action: 'delete' }))
  expect(result.results).toEqual([
    { id: own.id, ok: true },
    { id: others.id, ok: false, error: 'KR_FORBIDDEN' },
  ])
  expect((await itemRow(t, org.tenant.id, own.id))?.deletedAt).not.toBeNull()
  expect((await itemRow(t, org.tenant.id, others.id))?.deletedAt).toBeNull()
  const log = await changeLogOf(t, org.tenant.id)
  expect(log.at(-1)).toMatchObject({ entityId: own.id, changeType: 'Deleted' })

  const byAdmin = await json<BulkResult>(await org.admin.post('/api/items/bulk', { ids: [others.id], action: 'delete' }))
  expect(byAdmin.results).toEqual([{ id: others.id, ok: true }])
})

test('read-only members get a forbidden result for every item, and nothing changes', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const log = await changeLogOf(t, org.tenant.id)
  for (const body of [
    { action: 'assign', assigneeUserId: org.reader.member.user.id },
    { action: 'package', packageKey: null },
    { action: 'request-close', body: 'x' },
    { action: 'delete' },
  ]) {
    const result = await json<BulkResult>(await org.reader.post('/api/items/bulk', { ids: [item.id], ...body }))
    expect(result.results).toEqual([{ id: item.id, ok: false, error: 'KR_FORBIDDEN' }])
  }
  expect(await changeLogOf(t, org.tenant.id)).toEqual(log)
  expect(await getItem(org.reader, item.id)).toEqual(item)
})

test('package: checked against each item project; an item where it is not usable fails alone', async () => {
  const org = await createOrg(t)
  const projectB = await createProject(t, org.admin.member)
  const reportB = await createReport(t, org.admin.member, projectB)
  await createPackage(t, org.admin.member, 'glazing', { onProject: { projectId: projectB, active: false } })
  const a = await createItem(org.writer, org.reportId)
  const b = await createItem(org.writer, reportB)
  const result = await json<BulkResult>(await org.writer.post('/api/items/bulk', { ids: [a.id, b.id], action: 'package', packageKey: 'glazing' }))
  expect(result.results).toEqual([
    { id: a.id, ok: true },
    { id: b.id, ok: false, error: 'KR_VALIDATION' },
  ])
  expect((await getItem(org.reader, a.id)).packageKey).toBe('glazing')
  expect((await getItem(org.reader, b.id)).packageKey).toBeNull()
})

test('request-close: open items move to close requested; closed items say so', async () => {
  const org = await createOrg(t)
  const open = await createItem(org.writer, org.reportId)
  const closed = await createItem(org.writer, org.reportId)
  await json<Item>(await org.writer.post(`/api/items/${closed.id}/confirm-close`, { confirmed: true }))
  const result = await json<BulkResult>(await org.other.post('/api/items/bulk', { ids: [open.id, closed.id], action: 'request-close', body: 'Ready for inspection' }))
  expect(result.results).toEqual([
    { id: open.id, ok: true },
    { id: closed.id, ok: false, error: 'KR_ITEM_CLOSED' },
  ])
  expect((await activityOf(org.reader, open.id)).at(-1)).toMatchObject({ action: 'close_requested', changes: [{ field: 'status', from: 'open', to: 'close_requested' }] })
})

test.each([
  ['ids', { ids: undefined }],
  ['ids', { ids: [] }],
  ['ids', { ids: 'one' }],
  ['ids.0', { ids: ['not-a-uuid'] }],
  ['ids', { ids: Array.from({ length: 201 }, () => UNKNOWN_ID) }],
  ['action', { action: 'close' }],
  ['assigneeUserId', { action: 'assign' }],
  ['assigneeUserId', { action: 'assign', assigneeUserId: 'bob' }],
  ['packageKey', { action: 'package' }],
  ['body', { action: 'request-close' }],
  ['body', { action: 'request-close', body: '   ' }],
  ['body', { action: 'request-close', body: 'x'.repeat(5001) }],
])('a bulk call with a bad %s answers 400 naming it and changes nothing (case %#)', async (field, body) => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const log = await changeLogOf(t, org.tenant.id)
  const problem = await expectProblem(await org.admin.post('/api/items/bulk', { ids: [item.id], action: 'delete', ...body }), 400, 'KR_VALIDATION')
  expect(Object.keys(problem.errors ?? {})).toContain(field)
  expect(await changeLogOf(t, org.tenant.id)).toEqual(log)
})

test('assigning to someone who is not an active member refuses the whole call before anything is stored', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const suspended = await signedInMember(t, org.tenant, 'read-write')
  await setMembershipStatus(t, suspended.member, 'suspended')
  const outsider = await createMember(t.db)
  for (const userId of [suspended.member.user.id, outsider.user.id, UNKNOWN_ID]) {
    const problem = await expectProblem(await org.admin.post('/api/items/bulk', { ids: [item.id], action: 'assign', assigneeUserId: userId }), 400, 'KR_VALIDATION')
    expect(problem.errors?.assigneeUserId).toBeDefined()
  }
  expect(await getItem(org.reader, item.id)).toEqual(item)
  // A suspended member cannot run a bulk call at all.
  await expectProblem(await suspended.post('/api/items/bulk', { ids: [item.id], action: 'delete' }), 403)
})

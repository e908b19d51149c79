import { afterAll, beforeAll, expect, test } from 'vitest'
import type { ActivityEntry, Item, Page } from '~/lib/reporting/types'
import { createMember, createUser, client, expectProblem, show, signedInClient, uniqueSuffix } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import {
  activityOf,
  allPages,
  changeLogOf,
  createItem,
  createOrg,
  createPackage,
  createProject,
  createReport,
  getItem,
  itemRow,
  json,
  patch,
  setMembershipStatus,
  signedInMember,
  threadCounts,
} from '#tests/helpers/reporting-b'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2025-03-10T08:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

const UNKNOWN_ID = '6f1c0d6e-8d1b-4c53-9a43-1d1e2f3a4b5c'

test('creating an item answers 201 with the Item and every field the contract lists', async () => {
  const org = await createOrg(t)
  await createPackage(t, org.admin.member, 'electrical')
  const item = await createItem(org.writer, org.reportId, {
    title: '  Cracked tile in lobby  ',
    description: 'Near the east door',
    priority: 'high',
    assigneeUserId: org.other.member.user.id,
    packageKey: 'electrical',
    location: 'Level 1, lobby',
    dueDate: '2025-03-20',
  })
  expect(item).toMatchObject({
    number: 1,
    reportId: org.reportId,
    projectId: org.projectId,
    title: 'Cracked tile in lobby',
    description: 'Near the east door',
    status: 'open',
    priority: 'high',
    assignee: { id: org.other.member.user.id, displayName: org.other.member.user.displayName },
    packageKey: 'electrical',
    location: 'Level 1, lobby',
    dueDate: '2025-03-20',
    overdue: false,
    createdBy: { id: org.writer.member.user.id, displayName: org.writer.member.user.displayName },
    closedAtUtc: null,
    closedBy: null,
    nextAction: { by: 'assignee', user: { id: org.other.member.user.id } },
  })
  expect(item.reportTitle).toMatch(/^Report /)
  expect(item.projectTitle).toMatch(/^Project /)
  const log = await changeLogOf(t, org.tenant.id)
  expect(log.at(-1)).toEqual({ revision: item.revision, entity: 'ReportItem', entityId: item.id, changeType: 'Created' })
  expect(await getItem(org.reader, item.id)).toEqual(item)

  const [created] = await activityOf(org.reader, item.id)
  expect(created).toMatchObject({ action: 'created', actor: { id: org.writer.member.user.id } })
  expect(created?.changes).toEqual(
    expect.arrayContaining([
      { field: 'status', from: null, to: 'open' },
      { field: 'title', from: null, to: 'Cracked tile in lobby' },
      { field: 'assignee', from: null, to: { id: org.other.member.user.id, displayName: org.other.member.user.displayName } },
    ]),
  )
})

test('an item with only a title gets medium priority and needs an assignee', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.admin, org.reportId, { title: 'Loose handrail' })
  expect(item).toMatchObject({ priority: 'medium', assignee: null, packageKey: null, dueDate: null, description: null, location: null })
  expect(item.nextAction).toEqual({ by: 'assignee', user: null, label: 'Needs an assignee' })
})

test('numbers run per tenant across reports and never repeat, also when items are created at once', async () => {
  const org = await createOrg(t)
  const second = await createReport(t, org.admin.member, org.projectId)
  const a = await createItem(org.writer, org.reportId)
  const b = await createItem(org.writer, second)
  expect([a.number, b.number]).toEqual([1, 2])

  const together = await Promise.all(Array.from({ length: 8 }, (_, i) => createItem(i % 2 ? org.writer : org.admin, i % 2 ? org.reportId : second)))
  expect(together.map((i) => i.number).sort((x, y) => x - y)).toEqual([3, 4, 5, 6, 7, 8, 9, 10])

  // A deleted item keeps its number; another organisation starts at 1.
  expect((await org.writer.delete(`/api/items/${b.id}`)).status).toBe(204)
  expect((await createItem(org.writer, org.reportId)).number).toBe(11)
  const elsewhere = await createOrg(t)
  expect((await createItem(elsewhere.writer, elsewhere.reportId)).number).toBe(1)
})

test.each([
  ['title', { title: undefined }],
  ['title', { title: '   ' }],
  ['title', { title: 'x'.repeat(201) }],
  ['title', { title: 42 }],
  ['description', { description: 'x'.repeat(5001) }],
  ['priority', { priority: 'urgent' }],
  ['dueDate', { dueDate: '2025-02-30' }],
  ['dueDate', { dueDate: '2025-13-01' }],
  ['dueDate', { dueDate: '20/03/2025' }],
  ['dueDate', { dueDate: '2025-03-20T00:00:00Z' }],
  ['assigneeUserId', { assigneeUserId: 'someone' }],
  ['assigneeUserId', { assigneeUserId: UNKNOWN_ID }],
  ['packageKey', { packageKey: 'no-such-package' }],
  ['photoIds', { photoIds: [UNKNOWN_ID] }],
  ['photoIds', { photoIds: 'photo' }],
])('creating an item with a bad %s answers 400 naming it and stores nothing (case %#)', async (field, body: Record<string, unknown>) => {
  const org = await createOrg(t)
  const before = await changeLogOf(t, org.tenant.id)
  const problem = await expectProblem(await org.writer.post(`/api/reports/${org.reportId}/items`, { title: 'Valid', ...body }), 400, 'KR_VALIDATION')
  expect(Object.keys(problem.errors ?? {})).toContain(field)
  if (field === 'photoIds' && Array.isArray(body.photoIds)) expect(problem.errors?.photoIds).toEqual(['Photos arrive with photo upload; none can be attached yet'])
  expect(await changeLogOf(t, org.tenant.id)).toEqual(before)
  expect((await json<Page<Item>>(await org.writer.get(`/api/reports/${org.reportId}/items`))).items).toEqual([])
})

test('the assignee must be an active member of this organisation', async () => {
  const org = await createOrg(t)
  const suspended = await signedInMember(t, org.tenant, 'read-write')
  await setMembershipStatus(t, suspended.member, 'suspended')
  const outsider = await createMember(t.db)
  const noMembership = await createUser(t.db)
  for (const user of [suspended.member.user, outsider.user, noMembership]) {
    const problem = await expectProblem(await org.writer.post(`/api/reports/${org.reportId}/items`, { title: 'x', assigneeUserId: user.id }), 400, 'KR_VALIDATION')
    expect(problem.errors?.assigneeUserId).toBeDefined()
  }
  const reader = await createItem(org.writer, org.reportId, { assigneeUserId: org.reader.member.user.id })
  expect(reader.assignee?.id).toBe(org.reader.member.user.id)
})

test('the package must be usable on the item project: active, and not switched off there', async () => {
  const org = await createOrg(t)
  const otherProject = await createProject(t, org.admin.member)
  await createPackage(t, org.admin.member, 'inactive', { active: false })
  await createPackage(t, org.admin.member, 'off-here', { onProject: { projectId: org.projectId, active: false } })
  await createPackage(t, org.admin.member, 'on-here-only', { active: false, onProject: { projectId: otherProject, active: true } })
  for (const key of ['inactive', 'off-here', 'on-here-only']) {
    const problem = await expectProblem(await org.writer.post(`/api/reports/${org.reportId}/items`, { title: 'x', packageKey: key }), 400, 'KR_VALIDATION')
    expect(problem.errors?.packageKey).toBeDefined()
  }
  const elsewhere = await createReport(t, org.admin.member, otherProject)
  expect((await createItem(org.writer, elsewhere, { packageKey: 'on-here-only' })).packageKey).toBe('on-here-only')
  expect((await createItem(org.writer, elsewhere, { packageKey: 'off-here' })).packageKey).toBe('off-here')
})

test('read-only members cannot create items; read-write members and admins can', async () => {
  const org = await createOrg(t)
  await expectProblem(await org.reader.post(`/api/reports/${org.reportId}/items`, { title: 'x' }), 403, 'KR_FORBIDDEN')
  await createItem(org.writer, org.reportId)
  await createItem(org.admin, org.reportId)
})

test('archived reports and reports of archived projects take no new items (409 KR_ARCHIVED)', async () => {
  const org = await createOrg(t)
  const archivedReport = await createReport(t, org.admin.member, org.projectId, { status: 'archived' })
  const archivedProject = await createProject(t, org.admin.member, { status: 'archived' })
  const reportInArchivedProject = await createReport(t, org.admin.member, archivedProject)
  await expectProblem(await org.writer.post(`/api/reports/${archivedReport}/items`, { title: 'x' }), 409, 'KR_ARCHIVED')
  await expectProblem(await org.admin.post(`/api/reports/${reportInArchivedProject}/items`, { title: 'x' }), 409, 'KR_ARCHIVED')
})

test("another tenant's report, an unknown report and a malformed id answer 404 for listing and creating", async () => {
  const org = await createOrg(t)
  const theirs = await createOrg(t)
  for (const reportId of [theirs.reportId, UNKNOWN_ID, 'not-a-uuid']) {
    await expectProblem(await org.admin.get(`/api/reports/${reportId}/items`), 404, 'KR_NOT_FOUND')
    await expectProblem(await org.admin.post(`/api/reports/${reportId}/items`, { title: 'x' }), 404, 'KR_NOT_FOUND')
  }
  expect((await json<Page<Item>>(await theirs.admin.get(`/api/reports/${theirs.reportId}/items`))).items).toEqual([])
})

test('a report lists its live items oldest first, a page at a time', async () => {
  const org = await createOrg(t)
  const created: Item[] = []
  for (let i = 0; i < 7; i++) {
    t.now.advance(1000)
    created.push(await createItem(org.writer, org.reportId))
  }
  expect((await org.writer.delete(`/api/items/${created[3]?.id}`)).status).toBe(204)
  const { items, pages } = await allPages(org.reader, `/api/reports/${org.reportId}/items?limit=2`, 'after')
  expect(pages).toBe(3)
  expect(items.map((i) => i.number)).toEqual([1, 2, 3, 5, 6, 7])

  for (const query of ['limit=0', 'limit=101', 'limit=ten', 'after=not-a-cursor']) {
    const problem = await expectProblem(await org.reader.get(`/api/reports/${org.reportId}/items?${query}`), 400, 'KR_VALIDATION')
    expect(Object.keys(problem.errors ?? {})).toEqual([query.split('=')[0]])
  }
})

test("reading an item: another tenant's, an unknown, a deleted and a malformed id all answer 404", async () => {
  const org = await createOrg(t)
  const theirs = await createOrg(t)
  const their = await createItem(theirs.writer, theirs.reportId)
  const gone = await createItem(org.writer, org.reportId)
  expect((await org.writer.delete(`/api/items/${gone.id}`)).status).toBe(204)
  for (const id of [their.id, UNKNOWN_ID, gone.id, 'nope']) await expectProblem(await org.admin.get(`/api/items/${id}`), 404, 'KR_NOT_FOUND')
  expect((await getItem(theirs.reader, their.id)).id).toBe(their.id)
})

test('PATCH changes the given fields, clears null ones, and records one activity entry with old → new', async () => {
  const org = await createOrg(t)
  await createPackage(t, org.admin.member, 'civil')
  const item = await createItem(org.writer, org.reportId, { title: 'Old', description: 'Old text', location: 'Roof', dueDate: '2025-03-12' })
  t.now.advance(60_000)
  const at = t.now().toISOString()
  const updated = await json<Item>(
    await patch(org.other, `/api/items/${item.id}`, { title: 'New', description: null, priority: 'critical', assigneeUserId: org.writer.member.user.id, packageKey: 'civil', location: 'Roof', dueDate: '2025-03-14' }),
  )
  expect(updated).toMatchObject({ title: 'New', description: null, priority: 'critical', assignee: { id: org.writer.member.user.id }, packageKey: 'civil', location: 'Roof', dueDate: '2025-03-14', updatedAtUtc: at })
  expect(updated.revision).toBeGreaterThan(item.revision)

  const activity = await activityOf(org.reader, item.id)
  expect(activity.map((a) => a.action)).toEqual(['created', 'updated'])
  const entry = activity[1] as ActivityEntry
  expect(entry.actor).toEqual({ id: org.other.member.user.id, displayName: org.other.member.user.displayName })
  expect(entry.createdAtUtc).toBe(at)
  expect(entry.changes).toEqual(
    expect.arrayContaining([
      { field: 'title', from: 'Old', to: 'New' },
      { field: 'description', from: 'Old text', to: null },
      { field: 'priority', from: 'medium', to: 'critical' },
      { field: 'packageKey', from: null, to: 'civil' },
      { field: 'dueDate', from: '2025-03-12', to: '2025-03-14' },
      { field: 'assignee', from: null, to: { id: org.writer.member.user.id, displayName: org.writer.member.user.displayName } },
    ]),
  )
  expect(entry.changes).toHaveLength(6)

  // The same values again change nothing and record nothing.
  const log = await changeLogOf(t, org.tenant.id)
  const same = await json<Item>(await patch(org.other, `/api/items/${item.id}`, { title: 'New', location: 'Roof' }))
  expect(same.revision).toBe(updated.revision)
  expect(await changeLogOf(t, org.tenant.id)).toEqual(log)
  expect(await activityOf(org.reader, item.id)).toHaveLength(2)
})

test.each([
  ['title', { title: null }],
  ['title', { title: '' }],
  ['description', { description: 'x'.repeat(5001) }],
  ['priority', { priority: 'whenever' }],
  ['dueDate', { dueDate: '2025-02-29' }],
  ['assigneeUserId', { assigneeUserId: UNKNOWN_ID }],
  ['packageKey', { packageKey: 'nope' }],
  ['photoIds', { photoIds: [UNKNOWN_ID] }],
])('PATCH with a bad %s answers 400 naming it and changes nothing (case %#)', async (field, body) => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId, { title: 'Keep me' })
  const problem = await expectProblem(await patch(org.writer, `/api/items/${item.id}`, { priority: 'low', ...body }), 400, 'KR_VALIDATION')
  expect(Object.keys(problem.errors ?? {})).toContain(field)
  expect(await getItem(org.writer, item.id)).toEqual(item)
  expect(await threadCounts(t, org.tenant.id, item.id)).toEqual({ responses: 0, activity: 1 })
})

test('PATCH with the expectedRevision it read saves; after someone else changed the item it answers 409 KR_EDIT_CONFLICT and changes nothing', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId, { title: 'Read at this revision' })
  // Someone else changes the item after both opened it.
  const theirs = await json<Item>(await patch(org.other, `/api/items/${item.id}`, { expectedRevision: item.revision, location: 'Level 2' }))
  expect(theirs.revision).toBeGreaterThan(item.revision)
  const problem = await expectProblem(await patch(org.writer, `/api/items/${item.id}`, { expectedRevision: item.revision, location: 'Level 3' }), 409, 'KR_EDIT_CONFLICT')
  // The one convention of a stale write (issue 36 §4): who changed it, and the item as it is now to save against.
  const them = org.other.member.user.displayName
  expect(problem.detail).toBe(`Changed by ${them} since you opened it. Nothing was saved: your changes are still in the form. Check the item as it is now and save again.`)
  expect(problem).toMatchObject({ changedBy: them, currentRevision: theirs.revision, yourRevision: item.revision, current: theirs })
  expect(await getItem(org.writer, item.id)).toEqual(theirs)
  // With the revision read again, the save goes through; without one, PATCH behaves as before.
  expect((await json<Item>(await patch(org.writer, `/api/items/${item.id}`, { expectedRevision: theirs.revision, location: 'Level 3' }))).location).toBe('Level 3')
  expect((await json<Item>(await patch(org.writer, `/api/items/${item.id}`, { location: 'Level 4' }))).location).toBe('Level 4')
  await expectProblem(await patch(org.writer, `/api/items/${item.id}`, { expectedRevision: -1 }), 400, 'KR_VALIDATION')
})

test('PATCH: read-only members are refused; any read-write member and admins may edit', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  await expectProblem(await patch(org.reader, `/api/items/${item.id}`, { title: 'x' }), 403, 'KR_FORBIDDEN')
  expect((await json<Item>(await patch(org.other, `/api/items/${item.id}`, { title: 'by other' }))).title).toBe('by other')
  expect((await json<Item>(await patch(org.admin, `/api/items/${item.id}`, { title: 'by admin' }))).title).toBe('by admin')
})

test("PATCH and DELETE of another tenant's item answer 404 and leave it alone", async () => {
  const org = await createOrg(t)
  const theirs = await createOrg(t)
  const their = await createItem(theirs.writer, theirs.reportId, { title: 'Theirs' })
  await expectProblem(await patch(org.admin, `/api/items/${their.id}`, { title: 'Mine now' }), 404, 'KR_NOT_FOUND')
  await expectProblem(await org.admin.delete(`/api/items/${their.id}`), 404, 'KR_NOT_FOUND')
  expect(await getItem(theirs.writer, their.id)).toEqual(their)
})

test('DELETE: the creator and admins may delete; another read-write member and read-only members may not', async () => {
  const org = await createOrg(t)
  const mine = await createItem(org.writer, org.reportId)
  const another = await createItem(org.writer, org.reportId)
  await expectProblem(await org.other.delete(`/api/items/${mine.id}`), 403, 'KR_FORBIDDEN')
  await expectProblem(await org.reader.delete(`/api/items/${mine.id}`), 403, 'KR_FORBIDDEN')
  expect((await org.writer.delete(`/api/items/${mine.id}`)).status).toBe(204)
  expect((await org.admin.delete(`/api/items/${another.id}`)).status).toBe(204)
  await expectProblem(await org.writer.delete(`/api/items/${mine.id}`), 404, 'KR_NOT_FOUND')
})

test('DELETE soft-deletes: the row stays with its activity, and the change log says Deleted', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  t.now.advance(1000)
  expect((await org.writer.delete(`/api/items/${item.id}`)).status).toBe(204)
  const row = await itemRow(t, org.tenant.id, item.id)
  expect(row?.deletedAt?.toISOString()).toBe(t.now().toISOString())
  const log = await changeLogOf(t, org.tenant.id)
  expect(log.at(-1)).toEqual({ revision: row?.revision, entity: 'ReportItem', entityId: item.id, changeType: 'Deleted' })
  expect(await threadCounts(t, org.tenant.id, item.id)).toEqual({ responses: 0, activity: 2 })
  await expectProblem(await org.writer.get(`/api/items/${item.id}/activity`), 404, 'KR_NOT_FOUND')
})

test('an item not closed past its due date is overdue', async () => {
  const org = await createOrg(t)
  const today = t.now().toISOString().slice(0, 10)
  const item = await createItem(org.writer, org.reportId, { dueDate: today })
  expect(item.overdue).toBe(false)
  t.now.advance(24 * 60 * 60_000)
  // A day later the first sessions have expired: sign the creator in again.
  const writer = await signedInClient(t, org.writer.member)
  expect((await getItem(writer, item.id)).overdue).toBe(true)
  const closed = await json<Item>(await writer.post(`/api/items/${item.id}/confirm-close`, { confirmed: true }))
  expect(closed.overdue).toBe(false)
})

test('the change log is gap-free per tenant across creates, updates, status changes and deletes', async () => {
  const a = await createOrg(t)
  const b = await createOrg(t)
  const one = await createItem(a.writer, a.reportId)
  await createItem(b.writer, b.reportId)
  const two = await createItem(a.admin, a.reportId)
  await json<Item>(await patch(a.other, `/api/items/${one.id}`, { priority: 'low' }))
  expect((await a.writer.post(`/api/items/${one.id}/responses`, { body: 'Done', requestClose: true })).status).toBe(201)
  await json<Item>(await a.writer.post(`/api/items/${one.id}/confirm-close`, { confirmed: true }))
  expect((await a.admin.delete(`/api/items/${two.id}`)).status).toBe(204)
  await expectProblem(await a.reader.post(`/api/reports/${a.reportId}/items`, { title: 'refused' }), 403)

  for (const org of [a, b]) {
    const log = await changeLogOf(t, org.tenant.id)
    expect(log.map((l) => l.revision)).toEqual(log.map((_, i) => i + 1))
  }
  const log = await changeLogOf(t, a.tenant.id)
  // project, report, then the items' changes in order
  expect(log.slice(2).map((l) => `${l.changeType}:${l.entityId === one.id ? 'one' : 'two'}`)).toEqual([
    'Created:one',
    'Created:two',
    'Updated:one',
    'Updated:one',
    'Updated:one',
    'Deleted:two',
  ])
  expect((await getItem(a.reader, one.id)).revision).toBe(log[6]?.revision)
})

test('every item call needs a signed-in member', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const anonymous = client(t)
  await expectProblem(await anonymous.get(`/api/items/${item.id}`), 401)
  await expectProblem(await anonymous.get(`/api/reports/${org.reportId}/items`), 401)
  await expectProblem(await anonymous.post(`/api/reports/${org.reportId}/items`, { title: `x ${uniqueSuffix()}` }), 401)
  await setMembershipStatus(t, org.reader.member, 'suspended')
  const refused = await org.reader.get(`/api/items/${item.id}`)
  expect(refused.status, await show(refused)).toBe(403)
})

import { afterAll, beforeAll, expect, test } from 'vitest'
import type { DashboardFigures, Item, ItemResponse } from '~/lib/reporting/types'
import { expectProblem } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { activityOf, changeLogOf, createItem, createOrg, getItem, json, patch, responsesOf, threadCounts } from '#tests/helpers/reporting-b'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2025-03-10T08:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

const UNKNOWN_ID = '6f1c0d6e-8d1b-4c53-9a43-1d1e2f3a4b5c'
const tick = () => t.now.advance(1000)

test('a response is added to the thread (oldest first) and to the activity as responded', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  tick()
  const first = await json<ItemResponse>(await org.other.post(`/api/items/${item.id}/responses`, { body: '  On it  ' }), 201)
  expect(first).toMatchObject({
    itemId: item.id,
    kind: 'response',
    author: { id: org.other.member.user.id, displayName: org.other.member.user.displayName },
    body: 'On it',
    requestClose: false,
    photoIds: [],
    createdAtUtc: t.now().toISOString(),
  })
  tick()
  const second = await json<ItemResponse>(await org.admin.post(`/api/items/${item.id}/responses`, { body: 'Thanks', photoIds: [] }), 201)
  expect((await responsesOf(org.reader, item.id)).map((r) => r.id)).toEqual([first.id, second.id])
  expect((await activityOf(org.reader, item.id)).map((a) => [a.action, a.actor?.id])).toEqual([
    ['created', org.writer.member.user.id],
    ['responded', org.other.member.user.id],
    ['responded', org.admin.member.user.id],
  ])
  // A plain response leaves the status alone but moves the item's thread on: sync and realtime
  // (EntityChanged) see it as an update of the item.
  const after = await getItem(org.reader, item.id)
  expect(after.status).toBe('open')
  expect(after.revision).toBeGreaterThan(item.revision)
  const log = await changeLogOf(t, org.tenant.id)
  expect(log.filter((l) => l.entityId === item.id).map((l) => l.changeType)).toEqual(['Created', 'Updated', 'Updated'])
})

test('the full flow: request close, confirm, closed; the activity shows every step with old → new', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId, { assigneeUserId: org.other.member.user.id })
  tick()
  const asked = await json<ItemResponse>(await org.other.post(`/api/items/${item.id}/responses`, { body: 'Fixed, please check', requestClose: true }), 201)
  expect(asked.requestClose).toBe(true)
  const waiting = await getItem(org.reader, item.id)
  expect(waiting.status).toBe('close_requested')
  expect(waiting.nextAction).toMatchObject({ by: 'verifier', user: { id: org.writer.member.user.id } })
  expect(waiting.revision).toBeGreaterThan(item.revision)

  tick()
  const closed = await json<Item>(await org.writer.post(`/api/items/${item.id}/confirm-close`, { confirmed: true, body: 'Looks good' }))
  expect(closed).toMatchObject({
    status: 'closed',
    closedAtUtc: t.now().toISOString(),
    closedBy: { id: org.writer.member.user.id },
    nextAction: { by: 'none', user: null },
  })
  expect(closed.revision).toBeGreaterThan(waiting.revision)

  const thread = await responsesOf(org.reader, item.id)
  expect(thread.map((r) => [r.kind, r.body, r.author?.id])).toEqual([
    ['response', 'Fixed, please check', org.other.member.user.id],
    ['close_confirmed', 'Looks good', org.writer.member.user.id],
  ])
  const activity = await activityOf(org.reader, item.id)
  expect(activity.map((a) => [a.action, a.actor?.id, a.changes.filter((c) => c.field === 'status')])).toEqual([
    ['created', org.writer.member.user.id, [{ field: 'status', from: null, to: 'open' }]],
    ['close_requested', org.other.member.user.id, [{ field: 'status', from: 'open', to: 'close_requested' }]],
    ['closed', org.writer.member.user.id, [{ field: 'status', from: 'close_requested', to: 'closed' }]],
  ])
  const log = await changeLogOf(t, org.tenant.id)
  expect(log.filter((l) => l.entityId === item.id).map((l) => l.changeType)).toEqual(['Created', 'Updated', 'Updated'])
  expect(log.at(-1)?.revision).toBe(closed.revision)

  await expectProblem(await org.other.post(`/api/items/${item.id}/responses`, { body: 'One more thing' }), 409, 'KR_ITEM_CLOSED')
  await expectProblem(await org.writer.post(`/api/items/${item.id}/confirm-close`, { confirmed: true }), 409, 'KR_ITEM_STATE')
})

test('a rejected close goes back to open with the reason in the thread; a closed item can be reopened', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  tick()
  expect((await org.other.post(`/api/items/${item.id}/responses`, { body: 'Done', requestClose: true })).status).toBe(201)
  tick()
  const reopened = await json<Item>(await org.writer.post(`/api/items/${item.id}/confirm-close`, { confirmed: false, body: 'Still cracked at the corner' }))
  expect(reopened).toMatchObject({ status: 'open', closedAtUtc: null, closedBy: null })
  const thread = await responsesOf(org.reader, item.id)
  expect(thread.at(-1)).toMatchObject({ kind: 'close_rejected', body: 'Still cracked at the corner', author: { id: org.writer.member.user.id } })
  const activity = await activityOf(org.reader, item.id)
  expect(activity.at(-1)).toMatchObject({ action: 'reopened', changes: [{ field: 'status', from: 'close_requested', to: 'open' }], reason: 'Still cracked at the corner' })

  // The verifier may close an open item directly, and reopen a closed one with a reason.
  tick()
  expect((await json<Item>(await org.admin.post(`/api/items/${item.id}/confirm-close`, { confirmed: true }))).status).toBe('closed')
  tick()
  const again = await json<Item>(await org.writer.post(`/api/items/${item.id}/confirm-close`, { confirmed: false, body: 'Reopened: leak came back' }))
  expect(again.status).toBe('open')
  expect((await activityOf(org.reader, item.id)).map((a) => a.action)).toEqual(['created', 'close_requested', 'reopened', 'closed', 'reopened'])
  expect((await activityOf(org.reader, item.id)).at(-1)).toMatchObject({ changes: [{ field: 'status', from: 'closed', to: 'open' }], reason: 'Reopened: leak came back' })
  // Rejecting an item that is already open is a conflict.
  await expectProblem(await org.writer.post(`/api/items/${item.id}/confirm-close`, { confirmed: false, body: 'again' }), 409, 'KR_ITEM_STATE')
})

test('the reason of a rejected close is part of that activity entry only, as the verifier wrote it, on the dashboard too', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  tick()
  expect((await org.other.post(`/api/items/${item.id}/responses`, { body: 'Sealed', requestClose: true })).status).toBe(201)
  tick()
  const reason = '  Not sealed along the <b>left</b> edge.\nPlease redo it.  '
  expect((await org.admin.post(`/api/items/${item.id}/confirm-close`, { confirmed: false, body: reason })).status).toBe(200)
  tick()
  expect((await org.other.post(`/api/items/${item.id}/responses`, { body: 'Redone' })).status).toBe(201)

  const activity = await activityOf(org.reader, item.id)
  expect(activity.map((a) => [a.action, a.reason])).toEqual([
    ['created', null],
    ['close_requested', null],
    ['reopened', reason.trim()],
    ['responded', null],
  ])
  // The thread keeps it as well, and the dashboard's recent activity carries the same entry.
  expect((await responsesOf(org.reader, item.id)).find((r) => r.kind === 'close_rejected')?.body).toBe(reason.trim())
  const dashboard = await json<DashboardFigures>(await org.reader.get('/api/dashboard'))
  expect(dashboard.recentActivity.find((a) => a.action === 'reopened')).toMatchObject({ itemId: item.id, reason: reason.trim() })
})

test('a response while a close is requested keeps it requested', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  // Within the same millisecond (the clock does not move): the history still keeps the order.
  expect((await org.other.post(`/api/items/${item.id}/responses`, { body: 'Done', requestClose: true })).status).toBe(201)
  expect((await org.other.post(`/api/items/${item.id}/responses`, { body: 'Photo to follow', requestClose: true })).status).toBe(201)
  expect((await responsesOf(org.reader, item.id)).map((r) => r.body)).toEqual(['Done', 'Photo to follow'])
  expect((await getItem(org.reader, item.id)).status).toBe('close_requested')
  expect((await activityOf(org.reader, item.id)).map((a) => a.action)).toEqual(['created', 'close_requested', 'responded'])
})

test.each([
  ['body', {}],
  ['body', { body: '' }],
  ['body', { body: '   ' }],
  ['body', { body: 'x'.repeat(5001) }],
  ['body', { body: 7 }],
  ['requestClose', { body: 'ok', requestClose: 'yes' }],
  ['photoIds', { body: 'ok', photoIds: [UNKNOWN_ID] }],
  ['photoIds', { body: 'ok', requestClose: true, photoIds: [UNKNOWN_ID] }],
  ['photoIds', { body: 'ok', photoIds: 'one' }],
])('a response with a bad %s answers 400 naming it; no response, no activity, no status change (case %#)', async (field, body: Record<string, unknown>) => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const log = await changeLogOf(t, org.tenant.id)
  const problem = await expectProblem(await org.writer.post(`/api/items/${item.id}/responses`, body), 400, 'KR_VALIDATION')
  expect(Object.keys(problem.errors ?? {})).toContain(field)
  if (Array.isArray(body.photoIds)) expect(problem.errors?.photoIds?.[0]).toMatch(/^Only photos of this item can be attached/)
  expect(await threadCounts(t, org.tenant.id, item.id)).toEqual({ responses: 0, activity: 1 })
  expect(await getItem(org.writer, item.id)).toEqual(item)
  expect(await changeLogOf(t, org.tenant.id)).toEqual(log)
})

test.each([
  ['confirmed', {}],
  ['confirmed', { confirmed: 'yes' }],
  ['body', { confirmed: false }],
  ['body', { confirmed: false, body: '  ' }],
  ['body', { confirmed: false, body: 'x'.repeat(5001) }],
  ['photoIds', { confirmed: true, photoIds: [UNKNOWN_ID] }],
  ['photoIds', { confirmed: false, body: 'No', photoIds: [UNKNOWN_ID] }],
])('confirm-close with a bad %s answers 400 naming it and stores nothing (case %#)', async (field, body) => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  expect((await org.other.post(`/api/items/${item.id}/responses`, { body: 'Done', requestClose: true })).status).toBe(201)
  const waiting = await getItem(org.writer, item.id)
  const log = await changeLogOf(t, org.tenant.id)
  const problem = await expectProblem(await org.writer.post(`/api/items/${item.id}/confirm-close`, body), 400, 'KR_VALIDATION')
  expect(Object.keys(problem.errors ?? {})).toContain(field)
  expect(await getItem(org.writer, item.id)).toEqual(waiting)
  expect(await threadCounts(t, org.tenant.id, item.id)).toEqual({ responses: 1, activity: 2 })
  expect(await changeLogOf(t, org.tenant.id)).toEqual(log)
})

test('responding: read-only members are refused; read-write members and admins may respond', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  await expectProblem(await org.reader.post(`/api/items/${item.id}/responses`, { body: 'x' }), 403, 'KR_FORBIDDEN')
  await expectProblem(await org.reader.post(`/api/items/${item.id}/responses`, { body: 'x', requestClose: true }), 403, 'KR_FORBIDDEN')
  expect((await org.other.post(`/api/items/${item.id}/responses`, { body: 'x' })).status).toBe(201)
  expect((await org.admin.post(`/api/items/${item.id}/responses`, { body: 'x' })).status).toBe(201)
  expect((await responsesOf(org.reader, item.id)).length).toBe(2)
})

test('confirming or rejecting: only the creator and admins; another read-write member and read-only members are refused', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  expect((await org.other.post(`/api/items/${item.id}/responses`, { body: 'Done', requestClose: true })).status).toBe(201)
  for (const who of [org.other, org.reader]) {
    await expectProblem(await who.post(`/api/items/${item.id}/confirm-close`, { confirmed: true }), 403, 'KR_FORBIDDEN')
    await expectProblem(await who.post(`/api/items/${item.id}/confirm-close`, { confirmed: false, body: 'no' }), 403, 'KR_FORBIDDEN')
  }
  expect((await getItem(org.reader, item.id)).status).toBe('close_requested')
  expect((await json<Item>(await org.admin.post(`/api/items/${item.id}/confirm-close`, { confirmed: false, body: 'Admin says no' }))).status).toBe('open')
  expect((await json<Item>(await org.writer.post(`/api/items/${item.id}/confirm-close`, { confirmed: true }))).status).toBe('closed')
})

test("another tenant's item answers 404 for responses, confirm-close and activity, and stays untouched", async () => {
  const org = await createOrg(t)
  const theirs = await createOrg(t)
  const their = await createItem(theirs.writer, theirs.reportId)
  for (const id of [their.id, UNKNOWN_ID, 'bad-id']) {
    await expectProblem(await org.admin.get(`/api/items/${id}/responses`), 404, 'KR_NOT_FOUND')
    await expectProblem(await org.admin.post(`/api/items/${id}/responses`, { body: 'x', requestClose: true }), 404, 'KR_NOT_FOUND')
    await expectProblem(await org.admin.post(`/api/items/${id}/confirm-close`, { confirmed: true }), 404, 'KR_NOT_FOUND')
    await expectProblem(await org.admin.get(`/api/items/${id}/activity`), 404, 'KR_NOT_FOUND')
  }
  expect(await getItem(theirs.writer, their.id)).toEqual(their)
  expect(await threadCounts(t, theirs.tenant.id, their.id)).toEqual({ responses: 0, activity: 1 })
})

test('activity lists edits, responses and status changes oldest first, with their actors', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId, { title: 'Gap in fence' })
  tick()
  await json<Item>(await patch(org.other, `/api/items/${item.id}`, { title: 'Gap in site fence', location: 'North gate' }))
  tick()
  expect((await org.other.post(`/api/items/${item.id}/responses`, { body: 'Fixed', requestClose: true })).status).toBe(201)
  tick()
  await json<Item>(await org.writer.post(`/api/items/${item.id}/confirm-close`, { confirmed: true }))
  const activity = await activityOf(org.reader, item.id)
  expect(activity.map((a) => a.action)).toEqual(['created', 'updated', 'close_requested', 'closed'])
  expect(activity[1]).toMatchObject({
    itemId: item.id,
    actor: { id: org.other.member.user.id, displayName: org.other.member.user.displayName },
    changes: [
      { field: 'title', from: 'Gap in fence', to: 'Gap in site fence' },
      { field: 'location', from: null, to: 'North gate' },
    ],
  })
  const times = activity.map((a) => a.createdAtUtc)
  expect([...times].sort()).toEqual(times)
})

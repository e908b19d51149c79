import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { withTenant } from '#server/db/tenancy'
import { notify } from '#server/domain/notifications/notifications'
import { sendWorkflowReminders } from '#server/jobs/workflow-reminders'
import type { Transmittal, Workflow, WorkflowStepDefinition, WorkflowTemplate } from '~/lib/doc-control/types'
import type { Item } from '~/lib/reporting/types'
import type { NotificationPage } from '~/lib/schemas/notifications'
import { DEFAULT_NOTIFICATION_PREFERENCES } from '~/lib/settings/notifications'
import { client, expectProblem, mailsTo, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { documentProject, newDocument, uploadRevision } from '#tests/helpers/documents'
import { body, newProject, newReport, organisation, put, signedMember } from '#tests/helpers/reporting-a'

/**
 * docs/settings-appearance-notifications.md "In-app notifications": the events that write them
 * (review assigned and due, transmittal received, item assigned, close requested, revision
 * superseded), the preferences that decide them, the calls (list with paging, unread count, mark
 * one, mark all) and their walls: another person's or organisation's notification is 404.
 */

let t: TestBackend

// A Monday, so working days read plainly.
const START = '2026-11-16T09:00:00.000Z'

beforeAll(async () => {
  t = await createTestBackend({ now: START })
}, 300_000)

afterAll(async () => {
  await t?.close()
})

const list = async (c: TestClient, query = '') => body<NotificationPage>(await c.get(`/api/notifications${query}`))
const unread = async (c: TestClient) => (await body<{ unread: number }>(await c.get('/api/notifications/unread-count'))).unread

function step(name: string, userIds: string[]): WorkflowStepDefinition {
  return {
    name,
    mode: 'serial',
    consolidate: 'strictest',
    reviewers: userIds.map((userId) => ({ type: 'user' as const, userId })),
    dueDays: 2,
    outcomes: [
      { kind: 'approved', label: 'Approved', status: 'A1' },
      { kind: 'rejected', label: 'Rejected', status: 'S4' },
    ],
    onReject: { to: 'author' },
  }
}

/** An organisation with a reviewer, a project, a document at P01 and a review started by the writer. */
async function review() {
  const org = await organisation(t)
  const reviewer = await signedMember(t, 'read-write', org.tenant)
  const project = await documentProject(org.admin.c)
  const doc = await newDocument(org.admin.c, project.id)
  const revision = await uploadRevision(org.writer.c, doc.id, new TextEncoder().encode(`${doc.id} P01`), { code: 'P01', status: 'S0', fileName: 'drawing.txt', contentType: 'text/plain' })
  const template = await body<WorkflowTemplate>(await org.admin.c.post('/api/workflow-templates', { name: `Review ${randomUUID().slice(0, 8)}`, steps: [step('Check', [reviewer.user.id])] }), 201)
  const start = async () => body<Workflow>(await org.writer.c.post(`/api/projects/${project.id}/workflows`, { templateId: template.id, revisionIds: [revision.id] }), 201)
  return { org, reviewer, project, doc, revision, start }
}

test('a review assigned: the reviewer sees it unread with a link to the review, marks it read; the starter gets none', async () => {
  const s = await review()
  expect(await unread(s.reviewer.c)).toBe(0)
  expect(await list(s.reviewer.c)).toEqual({ items: [], nextCursor: null, unread: 0 })
  const wf = await s.start()

  const page = await list(s.reviewer.c)
  expect(page.unread).toBe(1)
  expect(page.nextCursor).toBeNull()
  expect(page.items).toEqual([
    {
      id: expect.any(String),
      kind: 'review-assigned',
      title: `Review ${s.doc.number} P01: Check`,
      link: `/doc-control/workflows/${wf.id}?projectId=${s.project.id}`,
      createdAt: START,
      readAt: null,
    },
  ])
  expect(await unread(s.reviewer.c)).toBe(1)
  expect(await unread(s.org.writer.c)).toBe(0)
  expect((await list(s.org.writer.c)).items).toEqual([])

  const id = page.items[0]?.id as string
  const marked = await body<{ notification: { readAt: string | null }; unread: number }>(await s.reviewer.c.post(`/api/notifications/${id}/read`))
  expect(marked).toMatchObject({ notification: { readAt: START }, unread: 0 })
  // Again: still read, nothing else changes.
  expect(await body<{ unread: number }>(await s.reviewer.c.post(`/api/notifications/${id}/read`))).toMatchObject({ unread: 0 })
  expect((await list(s.reviewer.c)).items[0]?.readAt).toBe(START)
})

test('walls: another member’s, another organisation’s, an unknown and a malformed notification id are 404 and change nothing; signed out is 401', async () => {
  const s = await review()
  await s.start()
  const [mine] = (await list(s.reviewer.c)).items
  const id = mine?.id as string
  const elsewhere = await organisation(t)

  for (const c of [s.org.writer.c, s.org.admin.c, s.org.reader.c, elsewhere.admin.c, elsewhere.writer.c]) {
    await expectProblem(await c.post(`/api/notifications/${id}/read`), 404)
  }
  await expectProblem(await s.reviewer.c.post(`/api/notifications/${randomUUID()}/read`), 404)
  await expectProblem(await s.reviewer.c.post('/api/notifications/not-an-id/read'), 404)
  // Marking all read elsewhere never touches the reviewer's.
  expect(await body<{ marked: number }>(await elsewhere.admin.c.post('/api/notifications/read-all'))).toEqual({ marked: 0, unread: 0 })
  expect(await body<{ marked: number }>(await s.org.admin.c.post('/api/notifications/read-all'))).toEqual({ marked: 0, unread: 0 })
  expect(await unread(s.reviewer.c)).toBe(1)

  const anonymous = client(t)
  await expectProblem(await anonymous.get('/api/notifications'), 401)
  await expectProblem(await anonymous.get('/api/notifications/unread-count'), 401)
  await expectProblem(await anonymous.post('/api/notifications/read-all'), 401)
  await expectProblem(await anonymous.post(`/api/notifications/${id}/read`), 401)
  expect(await unread(s.reviewer.c)).toBe(1)
})

test('the preferences decide mail, in-app or both, per kind', async () => {
  const onlyMail = await review()
  await body(await put(onlyMail.reviewer.c, '/api/user/notification-preferences/', { ...DEFAULT_NOTIFICATION_PREFERENCES, inApp: { ...DEFAULT_NOTIFICATION_PREFERENCES.inApp, reviewTask: false } }))
  await onlyMail.start()
  expect(await unread(onlyMail.reviewer.c)).toBe(0)
  expect((await mailsTo(t.db, onlyMail.reviewer.user.email)).filter((m) => m.template === 'workflow-review')).toHaveLength(1)

  const onlyApp = await review()
  await body(await put(onlyApp.reviewer.c, '/api/user/notification-preferences/', { ...DEFAULT_NOTIFICATION_PREFERENCES, reviewTask: false }))
  await onlyApp.start()
  expect(await unread(onlyApp.reviewer.c)).toBe(1)
  expect((await mailsTo(t.db, onlyApp.reviewer.user.email)).filter((m) => m.template === 'workflow-review')).toHaveLength(0)
})

test('review due: the reminder job tells the reviewer once, in the app as well as by mail', async () => {
  const s = await review()
  const wf = await s.start()
  const links = { publicUrl: t.config.publicUrl }
  await sendWorkflowReminders(t.db, new Date('2026-11-17T09:00:00.000Z'), links)
  await sendWorkflowReminders(t.db, new Date('2026-11-17T10:00:00.000Z'), links)
  const due = (await list(s.reviewer.c)).items.filter((n) => n.kind === 'review-due')
  expect(due).toEqual([expect.objectContaining({ title: `Review due within a day: ${s.doc.number} P01 (Check)`, link: `/doc-control/workflows/${wf.id}?projectId=${s.project.id}`, readAt: null })])
})

test('transmittal received and revision superseded: the recipients are told, the sender is not', async () => {
  const { tenant, admin, writer } = await organisation(t)
  const one = await signedMember(t, 'read-write', tenant)
  const two = await signedMember(t, 'read-only', tenant)
  const project = await documentProject(admin.c)
  const doc = await newDocument(writer.c, project.id)
  const revision = await uploadRevision(writer.c, doc.id, new TextEncoder().encode('P01'), { code: 'P01', status: 'S2', fileName: 'sheet.txt', contentType: 'text/plain' })
  const made = await body<Transmittal>(await writer.c.post(`/api/projects/${project.id}/transmittals`, { subject: 'Ground floor', revisionIds: [revision.id] }), 201)
  await body(await put(writer.c, `/api/transmittals/${made.id}/recipients`, { userIds: [one.user.id, two.user.id], partyIds: [] }))
  const transmittal = await body<Transmittal>(await writer.c.post(`/api/transmittals/${made.id}/send`))

  for (const who of [one, two]) {
    expect((await list(who.c)).items).toEqual([
      expect.objectContaining({ kind: 'transmittal-received', title: `Transmittal ${transmittal.number}: Ground floor`, link: `/doc-control/transmittals/${made.id}?projectId=${project.id}` }),
    ])
  }
  expect(await unread(writer.c)).toBe(0)

  await uploadRevision(writer.c, doc.id, new TextEncoder().encode('P02'), { code: 'P02', status: 'S2', fileName: 'sheet.txt', contentType: 'text/plain' })
  for (const who of [one, two]) {
    // The test clock stands still, so both have the same time: find it by its kind.
    const superseded = (await list(who.c)).items.filter((n) => n.kind === 'revision-superseded')
    expect(superseded).toHaveLength(1)
    expect(superseded[0]).toMatchObject({ kind: 'revision-superseded', title: `${doc.number} P01 is superseded by P02`, link: `/documents/${doc.id}` })
    expect(await unread(who.c)).toBe(2)
  }
  expect(await unread(writer.c)).toBe(0)
  // Mark all read: every one of mine, and only mine.
  expect(await body(await one.c.post('/api/notifications/read-all'))).toEqual({ marked: 2, unread: 0 })
  expect(await unread(one.c)).toBe(0)
  expect(await unread(two.c)).toBe(2)
})

test('item assigned and close requested: the assignee and the one who confirms the close', async () => {
  const { admin, writer } = await organisation(t)
  const project = await newProject(writer.c)
  const report = await newReport(writer.c, project.id)
  const item = await body<Item>(await writer.c.post(`/api/reports/${report.id}/items`, { title: 'Cracked kerb', assigneeUserId: admin.user.id }), 201)
  expect((await list(admin.c)).items).toEqual([expect.objectContaining({ kind: 'item-assigned', title: 'Item assigned to you: Cracked kerb', link: `/items/${item.id}` })])
  expect(await unread(writer.c)).toBe(0)

  expect((await admin.c.post(`/api/items/${item.id}/responses`, { body: 'Fixed', requestClose: true })).status).toBe(201)
  expect((await list(writer.c)).items).toEqual([expect.objectContaining({ kind: 'close-requested', title: 'Close requested: Cracked kerb', link: `/items/${item.id}` })])
})

test('paging: newest first, a page at a time, no row skipped or repeated; a bad cursor or limit is 400', async () => {
  const { tenant, writer } = await organisation(t)
  for (let i = 0; i < 7; i++) {
    await withTenant(t.db, tenant.id, (tx) =>
      notify(tx, { tenantId: tenant.id, actorUserId: null, now: new Date(Date.parse(START) + i * 60_000) }, [writer.user.id], { kind: 'item-assigned', title: `Item ${i}`, link: `/items/${randomUUID()}` }),
    )
  }
  const first = await list(writer.c, '?limit=3')
  expect(first.items.map((n) => n.title)).toEqual(['Item 6', 'Item 5', 'Item 4'])
  expect(first.unread).toBe(7)
  const second = await list(writer.c, `?limit=3&after=${first.nextCursor}`)
  expect(second.items.map((n) => n.title)).toEqual(['Item 3', 'Item 2', 'Item 1'])
  const third = await list(writer.c, `?limit=3&after=${second.nextCursor}`)
  expect(third).toMatchObject({ nextCursor: null, unread: 7 })
  expect(third.items.map((n) => n.title)).toEqual(['Item 0'])

  await expectProblem(await writer.c.get('/api/notifications?after=nonsense'), 400)
  await expectProblem(await writer.c.get('/api/notifications?limit=0'), 400)
  await expectProblem(await writer.c.get('/api/notifications?limit=101'), 400)
})

test('a notification never links outside the portal', async () => {
  const { tenant, writer } = await organisation(t)
  for (const link of ['https://elsewhere.example/x', '//elsewhere.example/x', 'items/1']) {
    await expect(
      withTenant(t.db, tenant.id, (tx) => notify(tx, { tenantId: tenant.id, actorUserId: null, now: new Date(START) }, [writer.user.id], { kind: 'item-assigned', title: 'x', link })),
    ).rejects.toThrow()
  }
  expect(await unread(writer.c)).toBe(0)
})


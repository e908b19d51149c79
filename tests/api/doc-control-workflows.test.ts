import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { matrixEntries, partyMembers, projectParties, transmittalRecipients, transmittals, workflowTasks } from '#server/db/schema-doc-control'
import { withTenant } from '#server/db/tenancy'
import { sendWorkflowReminders } from '#server/jobs/workflow-reminders'
import type { InboxEntry, NumberedPage, Workflow, WorkflowProposal, WorkflowStepDefinition, WorkflowSummary, WorkflowTemplate } from '~/lib/doc-control/types'
import type { DocumentDetail, Revision } from '~/lib/documents/types'
import type { Project } from '~/lib/reporting/types'
import { auditOf, expectProblem, mailsTo, signedInClient, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { documentProject, newDocument, startRevisionUpload, uploadRevision } from '#tests/helpers/documents'
import { body, changeLogOf, organisation, put, signedMember, type Signed } from '#tests/helpers/reporting-a'

/**
 * docs/doc-control.md "Workflow": starting reviews on revisions, every action and every refusal
 * (wrong state with the allowed list, wrong actor, read-only members, another organisation's ids),
 * template versions, consolidation of parallel steps, due dates, reminders and the inbox. Through HTTP.
 */

let t: TestBackend

// A Monday, so working days read plainly.
const START = '2026-11-16T09:00:00.000Z'

beforeAll(async () => {
  t = await createTestBackend({ now: START })
})

afterAll(async () => {
  await t?.close()
})

const APPROVE_OR_REVISE: WorkflowStepDefinition['outcomes'] = [
  { kind: 'approved', label: 'Approved', status: 'A1' },
  { kind: 'approved-with-comments', label: 'Approved with comments', status: 'B1' },
  { kind: 'revise', label: 'Revise and resubmit', status: 'S3' },
  { kind: 'rejected', label: 'Rejected', status: 'S4' },
]

function step(name: string, userIds: string[], extra: Partial<WorkflowStepDefinition> = {}): WorkflowStepDefinition {
  return {
    name,
    mode: 'serial',
    consolidate: 'strictest',
    reviewers: userIds.map((userId) => ({ type: 'user' as const, userId })),
    dueDays: 5,
    outcomes: APPROVE_OR_REVISE,
    onReject: { to: 'author' },
    ...extra,
  }
}

type Scene = { org: Awaited<ReturnType<typeof organisation>>; r1: Signed; r2: Signed; r3: Signed; project: Project; docs: DocumentDetail[]; revs: Revision[] }

const bytes = (text: string) => new TextEncoder().encode(text)

async function issue(c: TestClient, documentId: string, code: string, status = 'S0'): Promise<Revision> {
  return uploadRevision(c, documentId, bytes(`${documentId} ${code}`), { code, status, fileName: 'drawing.txt', contentType: 'text/plain' })
}

/** An organisation (admin, writer, reader) with three more read-write reviewers, a project and `count` documents at P01 (S0). */
async function scene(count = 1): Promise<Scene> {
  const org = await organisation(t)
  const r1 = await signedMember(t, 'read-write', org.tenant)
  const r2 = await signedMember(t, 'read-write', org.tenant)
  const r3 = await signedMember(t, 'read-write', org.tenant)
  const project = await documentProject(org.admin.c)
  const docs: DocumentDetail[] = []
  const revs: Revision[] = []
  for (let i = 0; i < count; i++) {
    const doc = await newDocument(org.admin.c, project.id)
    docs.push(doc)
    revs.push(await issue(org.writer.c, doc.id, 'P01'))
  }
  return { org, r1, r2, r3, project, docs, revs }
}

async function template(admin: Signed, steps: WorkflowStepDefinition[], name = `Review ${randomUUID().slice(0, 8)}`): Promise<WorkflowTemplate> {
  return body<WorkflowTemplate>(await admin.c.post('/api/workflow-templates', { name, steps }), 201)
}

async function start(c: TestClient, projectId: string, json: Record<string, unknown>): Promise<Workflow> {
  return body<Workflow>(await c.post(`/api/projects/${projectId}/workflows`, json), 201)
}

const get = async (c: TestClient, id: string) => body<Workflow>(await c.get(`/api/workflows/${id}`))
const act = (c: TestClient, id: string, action: string, json: unknown = {}) => c.post(`/api/workflows/${id}/${action}`, json)
const doc = async (c: TestClient, id: string) => body<DocumentDetail>(await c.get(`/api/documents/${id}`))
const reviewMails = async (who: Signed, template: string) => (await mailsTo(t.db, who.user.email)).filter((m) => m.template === template)

test('a two-step review: start shares the WIP revision and mails the first reviewer; approvals move it on and publish the revision', async () => {
  const s = await scene()
  const { admin, writer, tenant } = s.org
  const tpl = await template(admin, [step('Check', [s.r1.user.id], { dueDays: 2 }), step('Approve', [s.r2.user.id])])
  const wf = await start(writer.c, s.project.id, { templateId: tpl.id, revisionIds: [s.revs[0]?.id], message: 'Please review the ground floor.' })

  expect(wf).toMatchObject({ status: 'active', currentStep: 0, round: 1, message: 'Please review the ground floor.', outcome: null, overdue: false })
  expect(wf.template).toEqual({ id: tpl.id, name: tpl.name, version: 1 })
  expect(wf.startedBy?.id).toBe(writer.user.id)
  expect(wf.revisions).toEqual([expect.objectContaining({ revisionId: s.revs[0]?.id, code: 'P01', status: 'S3', state: 'Shared' })])
  expect(wf.tasks.map((x) => [x.assignee.id, x.step, x.status])).toEqual([
    [s.r1.user.id, 0, 'pending'],
    [s.r2.user.id, 1, 'waiting'],
  ])
  // Two working days for the first step; the whole review is due when both steps would be (2 + 5 working days).
  expect(wf.tasks[0]?.dueAt).toBe('2026-11-18T09:00:00.000Z')
  expect(wf.dueAt).toBe('2026-11-25T09:00:00.000Z')
  expect(wf.allowedActions).toEqual(['comment', 'reassign', 'cancel'])
  expect(wf.events.map((e) => [e.action, e.actor?.id, e.comment])).toEqual([['start', writer.user.id, 'Please review the ground floor.']])
  expect(await doc(writer.c, s.docs[0]?.id as string)).toMatchObject({ status: 'S3', state: 'Shared' })

  const mails = await reviewMails(s.r1, 'workflow-review')
  expect(mails).toHaveLength(1)
  expect(mails[0]?.textBody).toContain(`${t.config.publicUrl}/doc-control/workflows/${wf.id}?projectId=${s.project.id}`)
  expect(mails[0]?.textBody).toContain('Please review the ground floor.')
  expect(await reviewMails(s.r2, 'workflow-review')).toHaveLength(0)

  // Locked while under review: no new revision of the document.
  await expectProblem(await startRevisionUpload(writer.c, s.docs[0]?.id as string, 10, { code: 'P02', status: 'S0' }), 409, 'KR_UNDER_REVIEW')

  expect((await get(s.r1.c, wf.id)).allowedActions).toEqual(['approve', 'reject', 'comment'])
  expect((await get(s.r2.c, wf.id)).allowedActions).toEqual(['comment'])
  await expectProblem(await act(s.r2.c, wf.id, 'approve'), 403, 'KR_FORBIDDEN')

  const second = await body<Workflow>(await act(s.r1.c, wf.id, 'approve', { comment: 'Fine by me.' }))
  expect(second).toMatchObject({ status: 'active', currentStep: 1 })
  expect(second.tasks.map((x) => [x.assignee.id, x.status, x.outcome, x.comment])).toEqual([
    [s.r1.user.id, 'done', 'approved', 'Fine by me.'],
    [s.r2.user.id, 'pending', null, null],
  ])
  expect(second.tasks[1]?.dueAt).toBe('2026-11-23T09:00:00.000Z')
  expect(await reviewMails(s.r2, 'workflow-review')).toHaveLength(1)

  const done = await body<Workflow>(await act(s.r2.c, wf.id, 'approve', { outcome: 'approved' }))
  expect(done).toMatchObject({ status: 'approved', currentStep: null, outcome: 'approved', completedAt: START, allowedActions: [] })
  expect(done.revisions).toEqual([expect.objectContaining({ status: 'A1', state: 'Published' })])
  expect(await doc(writer.c, s.docs[0]?.id as string)).toMatchObject({ status: 'A1', state: 'Published' })
  expect(done.events.map((e) => e.action)).toEqual(['start', 'approve', 'approve'])

  const again = await expectProblem(await act(s.r2.c, wf.id, 'approve'), 409, 'KR_WORKFLOW_STATE')
  expect(again.allowed).toEqual([])
  const log = await changeLogOf(t, tenant.id)
  expect(log.filter((r) => r.entity === 'Workflow' && r.entityId === wf.id).map((r) => r.changeType)).toEqual(['Created', 'Updated', 'Updated'])
  expect(log.filter((r) => r.entity === 'Document' && r.entityId === s.docs[0]?.id).length).toBeGreaterThanOrEqual(3)
  const audit = await auditOf(t.db, { tenantId: tenant.id })
  expect(audit.filter((a) => a.action === 'doc-control.workflow.started')).toHaveLength(1)
  expect(audit.filter((a) => a.action === 'doc-control.workflow.acted').map((a) => (a.data as { action: string }).action)).toEqual(['approve', 'approve'])
})

test('reject with a reason returns it to the author; P02 is resubmitted, approved and published; the wrong state answers the allowed actions', async () => {
  const s = await scene()
  const { admin, writer } = s.org
  const tpl = await template(admin, [step('Check', [s.r1.user.id]), step('Approve', [s.r2.user.id])])
  const wf = await start(writer.c, s.project.id, { templateId: tpl.id, revisionIds: [s.revs[0]?.id] })

  const noReason = await expectProblem(await act(s.r1.c, wf.id, 'reject', { reason: '  ' }), 422, 'KR_VALIDATION')
  expect(Object.keys(noReason.errors ?? {})).toEqual(['reason'])
  await expectProblem(await act(s.r1.c, wf.id, 'reject', { reason: 'No', outcome: 'approved' }), 422, 'KR_VALIDATION')
  await expectProblem(await act(s.r1.c, wf.id, 'approve', { outcome: 'revise' }), 422, 'KR_VALIDATION')
  const returned = await body<Workflow>(await act(s.r1.c, wf.id, 'reject', { reason: 'Dimensions missing on grid C.' }))
  expect(returned).toMatchObject({ status: 'returned', currentStep: null, outcome: 'revise' })
  expect(returned.tasks.map((x) => x.status)).toEqual(['done', 'closed'])
  expect(returned.events.at(-1)).toMatchObject({ action: 'reject', outcome: 'revise', comment: 'Dimensions missing on grid C.', step: 0 })
  // Computed for the caller: the reviewer (read-write, so edit on the document) may resubmit; the starter may also cancel.
  expect(returned.allowedActions).toEqual(['comment', 'resubmit'])
  expect((await get(writer.c, wf.id)).allowedActions).toEqual(['comment', 'cancel', 'resubmit'])

  const wrong = await expectProblem(await act(s.r1.c, wf.id, 'approve'), 409, 'KR_WORKFLOW_STATE')
  expect(wrong.allowed).toEqual(['comment', 'resubmit'])
  expect((await expectProblem(await act(writer.c, wf.id, 'reassign', { taskId: returned.tasks[1]?.id, userId: s.r3.user.id }), 409, 'KR_WORKFLOW_STATE')).allowed).toEqual([
    'comment',
    'cancel',
    'resubmit',
  ])
  // Someone who only views the document, and is neither its starter nor a reviewer, may not resubmit it.
  await body(await put(admin.c, `/api/documents/${s.docs[0]?.id}/permissions`, { entries: [{ subjectKind: 'user', subject: s.r3.user.id, level: 'view' }] }))
  expect((await expectProblem(await act(s.r3.c, wf.id, 'resubmit', { revisionIds: [s.revs[0]?.id] }), 403, 'KR_FORBIDDEN')).code).toBe('KR_FORBIDDEN')
  expect((await get(s.r3.c, wf.id)).allowedActions).toEqual([])

  // Returned unlocks the document: the author issues P02.
  const p02 = await issue(writer.c, s.docs[0]?.id as string, 'P02')
  const other = await newDocument(admin.c, s.project.id)
  const otherRev = await issue(writer.c, other.id, 'P01')
  const stranger = await expectProblem(await act(writer.c, wf.id, 'resubmit', { revisionIds: [otherRev.id] }), 422, 'KR_VALIDATION')
  expect(stranger.errors?.revisionIds?.[0]).toContain('not a document of this review')
  await expectProblem(await act(writer.c, wf.id, 'resubmit', { revisionIds: [s.revs[0]?.id] }), 422, 'KR_VALIDATION')

  const again = await body<Workflow>(await act(writer.c, wf.id, 'resubmit', { revisionIds: [p02.id], message: 'Grid C dimensioned.' }))
  expect(again).toMatchObject({ status: 'active', currentStep: 0, round: 2, outcome: null })
  expect(again.revisions).toEqual([expect.objectContaining({ revisionId: p02.id, code: 'P02', status: 'S3', state: 'Shared' })])
  expect(again.tasks.filter((x) => x.round === 2).map((x) => [x.assignee.id, x.status])).toEqual([
    [s.r1.user.id, 'pending'],
    [s.r2.user.id, 'waiting'],
  ])
  expect(await reviewMails(s.r1, 'workflow-review')).toHaveLength(2)

  await body(await act(s.r1.c, wf.id, 'approve'))
  const approved = await body<Workflow>(await act(s.r2.c, wf.id, 'approve'))
  expect(approved).toMatchObject({ status: 'approved', outcome: 'approved' })
  // The rule book (issue 31): A1 on P02 issues C01 with the same file; the review now holds C01, and P02 keeps S3, superseded.
  expect(approved.revisions).toEqual([expect.objectContaining({ code: 'C01', status: 'A1', state: 'Published' })])
  const detail = await doc(writer.c, s.docs[0]?.id as string)
  expect(detail).toMatchObject({ status: 'A1', state: 'Published', currentRevision: { id: approved.revisions[0]?.revisionId, code: 'C01', status: 'A1' } })
  expect(detail.revisions.find((r) => r.id === p02.id)).toMatchObject({ code: 'P02', status: 'S3', superseded: true, supersededBy: { code: 'C01' } })
  // P01 was superseded by P02 and keeps the code the return gave it.
  expect(detail.revisions.find((r) => r.id === s.revs[0]?.id)).toMatchObject({ status: 'S3' })
  expect(approved.events.map((e) => e.action)).toEqual(['start', 'reject', 'resubmit', 'approve', 'approve'])
  expect(approved.events[2]?.comment).toBe('Grid C dimensioned.')

  // The document's history lists the review; P01 stays in it.
  const history = await body<{ items: WorkflowSummary[] }>(await writer.c.get(`/api/documents/${s.docs[0]?.id}/workflows`))
  expect(history.items.map((x) => [x.id, x.status])).toEqual([[wf.id, 'approved']])
})

test('wrong actors are refused with 403, read-only members with 403, and another organisation with 404 for every call with an id', async () => {
  const s = await scene()
  const { admin, writer, reader } = s.org
  const tpl = await template(admin, [step('Check', [s.r1.user.id]), step('Approve', [s.r2.user.id])])
  const wf = await start(writer.c, s.project.id, { templateId: tpl.id, revisionIds: [s.revs[0]?.id] })
  const taskId = wf.tasks[0]?.id

  // The read-only member reads it and may do nothing.
  expect((await get(reader.c, wf.id)).allowedActions).toEqual([])
  for (const [action, json] of [
    ['approve', {}],
    ['reject', { reason: 'No' }],
    ['comment', { comment: 'Hi' }],
    ['reassign', { taskId, userId: s.r3.user.id }],
    ['cancel', {}],
    ['resubmit', { revisionIds: [s.revs[0]?.id] }],
  ] as const) {
    await expectProblem(await act(reader.c, wf.id, action, json), 403, 'KR_FORBIDDEN')
  }
  await expectProblem(await reader.c.post(`/api/projects/${s.project.id}/workflows`, { templateId: tpl.id, revisionIds: [s.revs[0]?.id] }), 403, 'KR_FORBIDDEN')

  // A member who is not part of it.
  await expectProblem(await act(s.r3.c, wf.id, 'approve'), 403, 'KR_FORBIDDEN')
  await expectProblem(await act(s.r3.c, wf.id, 'reject', { reason: 'No' }), 403, 'KR_FORBIDDEN')
  await expectProblem(await act(s.r3.c, wf.id, 'comment', { comment: 'Hi' }), 403, 'KR_FORBIDDEN')
  await expectProblem(await act(s.r3.c, wf.id, 'cancel'), 403, 'KR_FORBIDDEN')
  // A reviewer neither reassigns nor cancels.
  await expectProblem(await act(s.r1.c, wf.id, 'reassign', { taskId, userId: s.r3.user.id }), 403, 'KR_FORBIDDEN')
  await expectProblem(await act(s.r1.c, wf.id, 'cancel'), 403, 'KR_FORBIDDEN')
  // Resubmit is for a returned review: 409 naming what the starter may do now.
  expect((await expectProblem(await act(writer.c, wf.id, 'resubmit', { revisionIds: [s.revs[0]?.id] }), 409, 'KR_WORKFLOW_STATE')).allowed).toEqual([
    'comment',
    'reassign',
    'cancel',
  ])

  // Another organisation: everything is 404, and so are ids that are not ids.
  const other = await organisation(t)
  for (const id of [wf.id, 'not-an-id', randomUUID()]) {
    await expectProblem(await other.admin.c.get(`/api/workflows/${id}`), 404, 'KR_NOT_FOUND')
    for (const [action, json] of [
      ['approve', {}],
      ['reject', { reason: 'No' }],
      ['comment', { comment: 'Hi' }],
      ['reassign', { taskId, userId: other.writer.user.id }],
      ['cancel', {}],
      ['resubmit', { revisionIds: [s.revs[0]?.id] }],
    ] as const) {
      await expectProblem(await act(other.admin.c, id, action, json), 404, 'KR_NOT_FOUND')
    }
  }
  await expectProblem(await other.admin.c.get(`/api/projects/${s.project.id}/workflows`), 404, 'KR_NOT_FOUND')
  await expectProblem(await other.admin.c.get(`/api/documents/${s.docs[0]?.id}/workflows`), 404, 'KR_NOT_FOUND')
  await expectProblem(await other.admin.c.get(`/api/projects/${s.project.id}/workflows/proposal?templateId=${tpl.id}&revisionIds=${s.revs[0]?.id}`), 404, 'KR_NOT_FOUND')
  await expectProblem(await other.admin.c.post(`/api/projects/${s.project.id}/workflows`, { templateId: tpl.id, revisionIds: [s.revs[0]?.id] }), 404, 'KR_NOT_FOUND')
  // Their own project with our template or our revision: 404 as well.
  const theirs = await documentProject(other.admin.c)
  const theirDoc = await newDocument(other.admin.c, theirs.id)
  const theirRev = await issue(other.admin.c, theirDoc.id, 'P01')
  const theirTpl = await template(other.admin, [step('Check', [other.writer.user.id])])
  await expectProblem(await other.admin.c.post(`/api/projects/${theirs.id}/workflows`, { templateId: tpl.id, revisionIds: [theirRev.id] }), 404, 'KR_NOT_FOUND')
  await expectProblem(await other.admin.c.post(`/api/projects/${theirs.id}/workflows`, { templateId: theirTpl.id, revisionIds: [s.revs[0]?.id] }), 404, 'KR_NOT_FOUND')
  // Nothing changed.
  expect(await get(writer.c, wf.id)).toMatchObject({ status: 'active', currentStep: 0 })
})

test('a member who may not see a document under review gets 404 for the review, and lists leave it out', async () => {
  const s = await scene()
  const { admin, writer } = s.org
  const tpl = await template(admin, [step('Check', [s.r1.user.id])])
  const wf = await start(writer.c, s.project.id, { templateId: tpl.id, revisionIds: [s.revs[0]?.id] })
  await body(await put(admin.c, `/api/documents/${s.docs[0]?.id}/permissions`, { entries: [{ subjectKind: 'user', subject: s.r3.user.id, level: 'none' }] }))
  await expectProblem(await s.r3.c.get(`/api/workflows/${wf.id}`), 404, 'KR_NOT_FOUND')
  await expectProblem(await act(s.r3.c, wf.id, 'comment', { comment: 'Hi' }), 404, 'KR_NOT_FOUND')
  expect(await body<NumberedPage<WorkflowSummary>>(await s.r3.c.get(`/api/projects/${s.project.id}/workflows`))).toMatchObject({ items: [], total: 0 })
  expect((await body<NumberedPage<WorkflowSummary>>(await writer.c.get(`/api/projects/${s.project.id}/workflows`))).total).toBe(1)
  // And cannot be handed a task of it.
  const refused = await expectProblem(await act(writer.c, wf.id, 'reassign', { taskId: wf.tasks[0]?.id, userId: s.r3.user.id }), 422, 'KR_VALIDATION')
  expect(Object.keys(refused.errors ?? {})).toEqual(['userId'])
})

test('a document is in one review at a time; cancelling frees it; cancel is for the starter or an admin', async () => {
  const s = await scene(2)
  const { admin, writer } = s.org
  const tpl = await template(admin, [step('Check', [s.r1.user.id])])
  const wf = await start(writer.c, s.project.id, { templateId: tpl.id, revisionIds: [s.revs[0]?.id] })
  const busy = await expectProblem(
    await writer.c.post(`/api/projects/${s.project.id}/workflows`, { templateId: tpl.id, revisionIds: [s.revs[1]?.id, s.revs[0]?.id] }),
    409,
    'KR_UNDER_REVIEW',
  )
  expect(busy.detail).toContain(s.docs[0]?.number)
  // Returned still holds the document (it waits for its author).
  await body(await act(s.r1.c, wf.id, 'reject', { reason: 'Not yet' }))
  await expectProblem(await writer.c.post(`/api/projects/${s.project.id}/workflows`, { templateId: tpl.id, revisionIds: [s.revs[0]?.id] }), 409, 'KR_UNDER_REVIEW')

  const cancelled = await body<Workflow>(await act(admin.c, wf.id, 'cancel', { reason: 'Superseded by the new layout' }))
  expect(cancelled).toMatchObject({ status: 'cancelled', currentStep: null, completedAt: START, allowedActions: [] })
  expect(cancelled.events.at(-1)).toMatchObject({ action: 'cancel', comment: 'Superseded by the new layout', actor: { id: admin.user.id } })
  expect((await expectProblem(await act(writer.c, wf.id, 'cancel'), 409, 'KR_WORKFLOW_STATE')).allowed).toEqual([])
  await expectProblem(await act(writer.c, wf.id, 'comment', { comment: 'Late' }), 409, 'KR_WORKFLOW_STATE')

  const next = await start(writer.c, s.project.id, { templateId: tpl.id, revisionIds: [s.revs[0]?.id, s.revs[1]?.id] })
  // Revisions read in document-number order.
  expect(next.revisions.map((r) => r.number)).toEqual([s.docs[0]?.number, s.docs[1]?.number].sort())
  const byStarter = await body<Workflow>(await act(writer.c, next.id, 'cancel'))
  expect(byStarter.status).toBe('cancelled')
  expect(byStarter.tasks.map((x) => x.status)).toEqual(['closed'])
  // A cancelled review locks nothing.
  await issue(writer.c, s.docs[0]?.id as string, 'P02', 'S3')
})

test('revisions that cannot be reviewed, a past due date and archived templates are refused', async () => {
  const s = await scene()
  const { admin, writer } = s.org
  const tpl = await template(admin, [step('Check', [s.r1.user.id])])
  const p02 = await issue(writer.c, s.docs[0]?.id as string, 'P02', 'S3')
  const superseded = await expectProblem(await writer.c.post(`/api/projects/${s.project.id}/workflows`, { templateId: tpl.id, revisionIds: [s.revs[0]?.id] }), 422, 'KR_VALIDATION')
  expect(superseded.errors?.revisionIds?.[0]).toContain('superseded')
  const past = await expectProblem(
    await writer.c.post(`/api/projects/${s.project.id}/workflows`, { templateId: tpl.id, revisionIds: [p02.id], dueDate: '2026-11-13' }),
    422,
    'KR_VALIDATION',
  )
  expect(Object.keys(past.errors ?? {})).toEqual(['dueDate'])
  await expectProblem(await writer.c.post(`/api/projects/${s.project.id}/workflows`, { templateId: tpl.id, revisionIds: [p02.id], dueDate: '16/11/2026' }), 400, 'KR_VALIDATION')
  await expectProblem(await writer.c.post(`/api/projects/${s.project.id}/workflows`, { templateId: tpl.id, revisionIds: [p02.id], dueDate: '2026-02-30' }), 400, 'KR_VALIDATION')
  await expectProblem(
    await writer.c.post(`/api/projects/${s.project.id}/workflows`, { templateId: tpl.id, revisionIds: [p02.id], reviewers: { '00': [s.r2.user.id] } }),
    400,
    'KR_VALIDATION',
  )
  await expectProblem(await writer.c.post(`/api/projects/${s.project.id}/workflows`, { templateId: tpl.id, revisionIds: [] }), 400, 'KR_VALIDATION')
  await expectProblem(await writer.c.post(`/api/projects/${s.project.id}/workflows`, { templateId: 'x', revisionIds: ['y'] }), 400, 'KR_VALIDATION')
  await expectProblem(await writer.c.post(`/api/projects/${s.project.id}/workflows`, { templateId: tpl.id, revisionIds: [p02.id, p02.id] }), 422, 'KR_VALIDATION')

  const due = await start(writer.c, s.project.id, { templateId: tpl.id, revisionIds: [p02.id], dueDate: '2026-12-01' })
  expect(due.dueAt).toBe('2026-12-01T23:59:59.999Z')
  await body(await act(s.r1.c, due.id, 'approve'))
  // Approved for a published suitability, the review issued C01 (the rule book): that revision is published.
  const approved = await body<{ currentRevision: { id: string; code: string } }>(await writer.c.get(`/api/documents/${s.docs[0]?.id}`))
  expect(approved.currentRevision.code).toBe('C01')
  const published = approved.currentRevision
  const alreadyPublished = await expectProblem(
    await writer.c.post(`/api/projects/${s.project.id}/workflows`, { templateId: tpl.id, revisionIds: [published.id] }),
    422,
    'KR_VALIDATION',
  )
  expect(alreadyPublished.errors?.revisionIds?.[0]).toContain('published')

  const other = await newDocument(admin.c, s.project.id)
  const rev = await issue(writer.c, other.id, 'P01')
  await body(await admin.c.post(`/api/workflow-templates/${tpl.id}/archive`))
  await expectProblem(await writer.c.post(`/api/projects/${s.project.id}/workflows`, { templateId: tpl.id, revisionIds: [rev.id] }), 409, 'KR_ARCHIVED')
})

test('a running review keeps the template version it started with after the template changes', async () => {
  const s = await scene(2)
  const { admin, writer } = s.org
  const tpl = await template(admin, [step('Check', [s.r1.user.id]), step('Approve', [s.r2.user.id])])
  const v1run = await start(writer.c, s.project.id, { templateId: tpl.id, revisionIds: [s.revs[0]?.id] })
  const v2 = await body<WorkflowTemplate>(await put(admin.c, `/api/workflow-templates/${tpl.id}`, { name: tpl.name, steps: [step('Sign off', [s.r3.user.id], { dueDays: 1 })] }))
  expect(v2.version).toBe(2)

  const still = await get(writer.c, v1run.id)
  expect(still.template.version).toBe(1)
  expect(still.steps.map((x) => x.name)).toEqual(['Check', 'Approve'])
  await body(await act(s.r1.c, v1run.id, 'approve'))
  const atTwo = await get(writer.c, v1run.id)
  expect(atTwo).toMatchObject({ status: 'active', currentStep: 1 })
  expect(atTwo.tasks.find((x) => x.status === 'pending')?.assignee.id).toBe(s.r2.user.id)

  const v2run = await start(writer.c, s.project.id, { templateId: tpl.id, revisionIds: [s.revs[1]?.id] })
  expect(v2run.template.version).toBe(2)
  expect(v2run.tasks.map((x) => [x.assignee.id, x.status])).toEqual([[s.r3.user.id, 'pending']])
  expect(v2run.tasks[0]?.dueAt).toBe('2026-11-17T09:00:00.000Z')
})

test('a parallel step waits for every reviewer and the strictest answer wins; with consolidate any the first approval closes it', async () => {
  const s = await scene(3)
  const { admin, writer } = s.org
  const people = [s.r1.user.id, s.r2.user.id]
  const strict = await template(admin, [step('Team check', people, { mode: 'parallel' })])
  const wf = await start(writer.c, s.project.id, { templateId: strict.id, revisionIds: [s.revs[0]?.id] })
  expect(wf.tasks.map((x) => x.status)).toEqual(['pending', 'pending'])
  const half = await body<Workflow>(await act(s.r1.c, wf.id, 'approve'))
  expect(half).toMatchObject({ status: 'active', currentStep: 0 })
  expect(half.allowedActions).toEqual(['comment'])
  await expectProblem(await act(s.r1.c, wf.id, 'approve'), 403, 'KR_FORBIDDEN')
  const worst = await body<Workflow>(await act(s.r2.c, wf.id, 'reject', { reason: 'Clash with the duct', outcome: 'rejected' }))
  expect(worst).toMatchObject({ status: 'returned', outcome: 'rejected' })
  // Rejected's code (S4) is set on the revision, which stays shared.
  expect(worst.revisions).toEqual([expect.objectContaining({ status: 'S4', state: 'Shared' })])

  const mixed = await start(writer.c, s.project.id, { templateId: strict.id, revisionIds: [s.revs[1]?.id] })
  await body(await act(s.r2.c, mixed.id, 'approve', { outcome: 'approved-with-comments', comment: 'Note the door swing.' }))
  const both = await body<Workflow>(await act(s.r1.c, mixed.id, 'approve', { outcome: 'approved' }))
  expect(both).toMatchObject({ status: 'approved', outcome: 'approved-with-comments' })
  expect(both.revisions).toEqual([expect.objectContaining({ status: 'B1', state: 'Published' })])

  const anyTpl = await template(admin, [step('Any of us', people, { mode: 'parallel', consolidate: 'any' })])
  const any = await start(writer.c, s.project.id, { templateId: anyTpl.id, revisionIds: [s.revs[2]?.id] })
  await body(await act(s.r2.c, any.id, 'reject', { reason: 'I would change it' }))
  const first = await body<Workflow>(await act(s.r1.c, any.id, 'approve'))
  expect(first).toMatchObject({ status: 'approved', outcome: 'approved' })
  expect(first.tasks.map((x) => [x.assignee.id, x.status, x.outcome]).sort()).toEqual(
    [
      [s.r1.user.id, 'done', 'approved'],
      [s.r2.user.id, 'done', 'revise'],
    ].sort(),
  )
})

test('a step that sends back to an earlier step starts a new round there; the others are planned again', async () => {
  const s = await scene()
  const { admin, writer } = s.org
  const tpl = await template(admin, [step('Check', [s.r1.user.id]), step('Approve', [s.r2.user.id], { onReject: { to: 'step', step: 0 } })])
  const wf = await start(writer.c, s.project.id, { templateId: tpl.id, revisionIds: [s.revs[0]?.id] })
  await body(await act(s.r1.c, wf.id, 'approve'))
  const back = await body<Workflow>(await act(s.r2.c, wf.id, 'reject', { reason: 'Check the fire strategy again' }))
  expect(back).toMatchObject({ status: 'active', currentStep: 0, round: 2, outcome: null })
  expect(back.tasks.filter((x) => x.round === 2).map((x) => [x.assignee.id, x.step, x.status])).toEqual([
    [s.r1.user.id, 0, 'pending'],
    [s.r2.user.id, 1, 'waiting'],
  ])
  expect(back.revisions).toEqual([expect.objectContaining({ status: 'S3', state: 'Shared' })])
  expect(await reviewMails(s.r1, 'workflow-review')).toHaveLength(2)
  await body(await act(s.r1.c, wf.id, 'approve'))
  expect(await body<Workflow>(await act(s.r2.c, wf.id, 'approve'))).toMatchObject({ status: 'approved', round: 2 })
})

test('reassign hands a pending or planned task to someone who may review; the new reviewer is mailed and acts', async () => {
  const s = await scene()
  const { admin, writer, reader } = s.org
  const tpl = await template(admin, [step('Check', [s.r1.user.id], { dueDays: 3 }), step('Approve', [s.r2.user.id])])
  const wf = await start(writer.c, s.project.id, { templateId: tpl.id, revisionIds: [s.revs[0]?.id] })
  const [checkTask, approveTask] = wf.tasks

  await expectProblem(await act(writer.c, wf.id, 'reassign', { taskId: checkTask?.id, userId: reader.user.id }), 422, 'KR_VALIDATION')
  await expectProblem(await act(writer.c, wf.id, 'reassign', { taskId: randomUUID(), userId: s.r3.user.id }), 422, 'KR_VALIDATION')
  await expectProblem(await act(writer.c, wf.id, 'reassign', { taskId: checkTask?.id, userId: s.r1.user.id }), 422, 'KR_VALIDATION')
  const stranger = await signedMember(t, 'read-write')
  await expectProblem(await act(writer.c, wf.id, 'reassign', { taskId: checkTask?.id, userId: stranger.user.id }), 422, 'KR_VALIDATION')

  t.now.set('2026-11-17T10:00:00.000Z')
  try {
    // A day later: a fresh session (the first ones idled out at the clock's jump).
    const later = await signedInClient(t, writer)
    const moved = await body<Workflow>(await act(later, wf.id, 'reassign', { taskId: checkTask?.id, userId: s.r3.user.id }))
    expect(moved.tasks.map((x) => [x.assignee.id, x.step, x.status])).toEqual([
      [s.r1.user.id, 0, 'reassigned'],
      [s.r3.user.id, 0, 'pending'],
      [s.r2.user.id, 1, 'waiting'],
    ])
    // The new reviewer gets the step's full time from now.
    expect(moved.tasks[1]?.dueAt).toBe('2026-11-20T10:00:00.000Z')
    expect(moved.events.at(-1)).toMatchObject({ action: 'reassign', step: 0 })
  } finally {
    t.now.reset()
  }
  expect(await reviewMails(s.r3, 'workflow-review')).toHaveLength(1)
  await expectProblem(await act(s.r1.c, wf.id, 'approve'), 403, 'KR_FORBIDDEN')
  // The admin plans the second step for someone else too.
  await body(await act(admin.c, wf.id, 'reassign', { taskId: approveTask?.id, userId: s.r1.user.id }))
  await body(await act(s.r3.c, wf.id, 'approve'))
  const atTwo = await get(s.r1.c, wf.id)
  expect(atTwo.allowedActions).toEqual(['approve', 'reject', 'comment'])
  expect(await body<Workflow>(await act(s.r1.c, wf.id, 'approve'))).toMatchObject({ status: 'approved' })
  expect(await reviewMails(s.r2, 'workflow-review')).toHaveLength(0)
})

test('comments come from the starter and the reviewers, on the review or one of its revisions, in order', async () => {
  const s = await scene(2)
  const { admin, writer } = s.org
  const tpl = await template(admin, [step('Check', [s.r1.user.id]), step('Approve', [s.r2.user.id])])
  const wf = await start(writer.c, s.project.id, { templateId: tpl.id, revisionIds: [s.revs[0]?.id] })
  await body(await act(s.r1.c, wf.id, 'comment', { comment: 'Looking at it now.' }))
  await body(await act(writer.c, wf.id, 'comment', { comment: 'Thanks.', revisionId: s.revs[0]?.id }))
  // The planned reviewer of a later step is a reviewer of it too.
  const last = await body<Workflow>(await act(s.r2.c, wf.id, 'comment', { comment: 'Heads up for step 2.' }))
  expect(last.events.map((e) => [e.action, e.actor?.id, e.comment, e.revisionId, e.step])).toEqual([
    ['start', writer.user.id, null, null, 0],
    ['comment', s.r1.user.id, 'Looking at it now.', null, 0],
    ['comment', writer.user.id, 'Thanks.', s.revs[0]?.id, 0],
    ['comment', s.r2.user.id, 'Heads up for step 2.', null, 0],
  ])
  await expectProblem(await act(writer.c, wf.id, 'comment', { comment: 'Wrong one', revisionId: s.revs[1]?.id }), 422, 'KR_VALIDATION')
  await expectProblem(await act(writer.c, wf.id, 'comment', { comment: '' }), 400, 'KR_VALIDATION')
  await expectProblem(await act(admin.c, wf.id, 'comment', { comment: 'An admin is not a participant' }), 403, 'KR_FORBIDDEN')
})

test('reviewers come from roles, parties and the responsibility matrix; the proposal shows them; a step with nobody is 422 naming it', async () => {
  const s = await scene()
  const { admin, writer, reader, tenant } = s.org
  const docDiscipline = s.docs[0]?.discipline as string
  const architect = randomUUID()
  const engineers = randomUUID()
  await withTenant(t.db, tenant.id, async (tx) => {
    await tx.insert(projectParties).values([
      { tenantId: tenant.id, id: architect, projectId: s.project.id, name: 'Architect', code: 'ARC', role: 'lead-appointed' },
      { tenantId: tenant.id, id: engineers, projectId: s.project.id, name: 'Engineers', code: 'STR', role: 'task-team' },
    ])
    await tx.insert(partyMembers).values([
      { tenantId: tenant.id, partyId: architect, userId: s.r1.user.id, lead: true },
      { tenantId: tenant.id, partyId: architect, userId: reader.user.id, lead: false },
      { tenantId: tenant.id, partyId: engineers, userId: s.r2.user.id, lead: false },
    ])
    await tx.insert(matrixEntries).values({ tenantId: tenant.id, projectId: s.project.id, discipline: docDiscipline, docType: '', partyId: engineers, responsibility: 'review' })
  })
  const tpl = await template(admin, [
    { ...step('Architect', []), reviewers: [{ type: 'party', partyId: architect }] },
    { ...step('Matrix', []), reviewers: [{ type: 'matrix' }] },
    { ...step('Admins', []), reviewers: [{ type: 'role', roleKey: 'admin' }] },
  ])
  const proposal = await body<WorkflowProposal>(await writer.c.get(`/api/projects/${s.project.id}/workflows/proposal?templateId=${tpl.id}&revisionIds=${s.revs[0]?.id}`))
  expect(proposal.template).toEqual({ id: tpl.id, name: tpl.name, version: 1 })
  // The read-only member of the architect's party is left out: read-only members cannot review.
  expect(proposal.steps.map((x) => [x.name, x.reviewers.map((p) => p.id), x.problem])).toEqual([
    ['Architect', [s.r1.user.id], null],
    ['Matrix', [s.r2.user.id], null],
    ['Admins', [admin.user.id], null],
  ])
  await expectProblem(await writer.c.get(`/api/projects/${s.project.id}/workflows/proposal?templateId=${tpl.id}&revisionIds=nope`), 400, 'KR_VALIDATION')

  const wf = await start(writer.c, s.project.id, { templateId: tpl.id, revisionIds: [s.revs[0]?.id], reviewers: { '2': [s.r3.user.id] } })
  expect(wf.tasks.map((x) => [x.assignee.id, x.step, x.status])).toEqual([
    [s.r1.user.id, 0, 'pending'],
    [s.r2.user.id, 1, 'waiting'],
    [s.r3.user.id, 2, 'waiting'],
  ])
  await body(await act(writer.c, wf.id, 'cancel'))

  const badOverride = await expectProblem(
    await writer.c.post(`/api/projects/${s.project.id}/workflows`, { templateId: tpl.id, revisionIds: [s.revs[0]?.id], reviewers: { '0': [reader.user.id], '7': [s.r1.user.id] } }),
    422,
    'KR_VALIDATION',
  )
  expect(Object.keys(badOverride.errors ?? {}).sort()).toEqual(['reviewers.0', 'reviewers.7'])

  // With the matrix entry gone, the matrix step has nobody: 422 naming it.
  await withTenant(t.db, tenant.id, (tx) => tx.delete(matrixEntries).where(and(eq(matrixEntries.tenantId, tenant.id), eq(matrixEntries.partyId, engineers))))
  const nobody = await expectProblem(await writer.c.post(`/api/projects/${s.project.id}/workflows`, { templateId: tpl.id, revisionIds: [s.revs[0]?.id] }), 422, 'KR_VALIDATION')
  expect(Object.keys(nobody.errors ?? {})).toEqual(['reviewers.1'])
  expect(nobody.errors?.['reviewers.1']?.[0]).toContain('“Matrix”')
  const proposalNow = await body<WorkflowProposal>(await writer.c.get(`/api/projects/${s.project.id}/workflows/proposal?templateId=${tpl.id}&revisionIds=${s.revs[0]?.id}`))
  expect(proposalNow.steps[1]).toMatchObject({ reviewers: [], problem: expect.stringContaining('matrix') })
})

test('due and overdue are computed on read; the reminder job mails once, the day before due', async () => {
  const s = await scene()
  const { admin, writer } = s.org
  const tpl = await template(admin, [step('Check', [s.r1.user.id], { dueDays: 2 })])
  const wf = await start(writer.c, s.project.id, { templateId: tpl.id, revisionIds: [s.revs[0]?.id] })
  expect(wf.tasks[0]?.dueAt).toBe('2026-11-18T09:00:00.000Z')
  const links = { publicUrl: t.config.publicUrl }
  const reminders = async () => (await reviewMails(s.r1, 'workflow-due')).length
  try {
    await sendWorkflowReminders(t.db, new Date('2026-11-17T08:59:00.000Z'), links)
    expect(await reminders()).toBe(0)
    await sendWorkflowReminders(t.db, new Date('2026-11-17T09:00:00.000Z'), links)
    expect(await reminders()).toBe(1)
    await sendWorkflowReminders(t.db, new Date('2026-11-17T10:00:00.000Z'), links)
    expect(await reminders()).toBe(1)
    const [mail] = await reviewMails(s.r1, 'workflow-due')
    expect(mail?.textBody).toContain(`/doc-control/workflows/${wf.id}?projectId=${s.project.id}`)
    const [task] = await withTenant(t.db, s.org.tenant.id, (tx) => tx.select({ sent: workflowTasks.reminderSentAt }).from(workflowTasks).where(eq(workflowTasks.workflowId, wf.id)))
    expect(task?.sent?.toISOString()).toBe('2026-11-17T09:00:00.000Z')

    t.now.set('2026-11-18T09:00:00.000Z')
    // Fresh sessions at each jump of the clock (an idle session ends after 30 minutes).
    expect((await get(await signedInClient(t, s.r1), wf.id)).tasks[0]?.overdue).toBe(false)
    t.now.set('2026-11-18T09:00:01.000Z')
    const r1 = await signedInClient(t, s.r1)
    const late = await get(r1, wf.id)
    expect(late.tasks[0]?.overdue).toBe(true)
    expect(late.overdue).toBe(true)
    const inbox = await body<NumberedPage<InboxEntry>>(await r1.get('/api/inbox?kind=tasks'))
    expect(inbox.items[0]).toMatchObject({ kind: 'task', overdue: true })
    const done = await body<Workflow>(await act(r1, wf.id, 'approve'))
    expect(done.tasks[0]?.overdue).toBe(false)
    expect(done.overdue).toBe(false)
  } finally {
    t.now.reset()
  }
})

test('the inbox lists my pending tasks and the transmittals sent to me, newest first, paged', async () => {
  const s = await scene(2)
  const { admin, writer, tenant } = s.org
  const tpl = await template(admin, [step('Check', [s.r1.user.id])])
  const first = await start(writer.c, s.project.id, { templateId: tpl.id, revisionIds: [s.revs[0]?.id] })
  t.now.set('2026-11-16T09:20:00.000Z')
  let second: Workflow
  try {
    second = await start(writer.c, s.project.id, { templateId: tpl.id, revisionIds: [s.revs[1]?.id] })
  } finally {
    t.now.reset()
  }
  const sent = randomUUID()
  const draft = randomUUID()
  await withTenant(t.db, tenant.id, async (tx) => {
    await tx.insert(transmittals).values([
      {
        tenantId: tenant.id,
        id: sent,
        projectId: s.project.id,
        seq: 1,
        number: 'SYM01-TRN-000001',
        subject: 'Tender set',
        status: 'sent',
        sentAt: new Date('2026-11-16T09:10:00.000Z'),
        revision: 0,
      },
      { tenantId: tenant.id, id: draft, projectId: s.project.id, seq: 2, number: 'SYM01-TRN-000002', subject: 'Draft', status: 'draft', revision: 0 },
    ])
    await tx.insert(transmittalRecipients).values([
      { tenantId: tenant.id, transmittalId: sent, userId: s.r1.user.id, status: 'sent' },
      { tenantId: tenant.id, transmittalId: draft, userId: s.r1.user.id, status: 'pending' },
    ])
  })

  const all = await body<NumberedPage<InboxEntry>>(await s.r1.c.get('/api/inbox'))
  expect(all).toMatchObject({ total: 3, page: 1, pageSize: 20 })
  expect(all.items.map((e) => (e.kind === 'task' ? e.workflowId : e.transmittalId))).toEqual([second.id, sent, first.id])
  expect(all.items[0]).toMatchObject({
    kind: 'task',
    projectId: s.project.id,
    step: 'Check',
    overdue: false,
    allowedActions: ['approve', 'reject', 'comment'],
    title: expect.stringContaining(s.docs[1]?.number as string),
  })
  expect(all.items[1]).toMatchObject({ kind: 'transmittal', number: 'SYM01-TRN-000001', subject: 'Tender set', status: 'sent', purpose: 'for-information' })

  const tasks = await body<NumberedPage<InboxEntry>>(await s.r1.c.get('/api/inbox?kind=tasks&pageSize=1&page=2'))
  expect(tasks).toMatchObject({ total: 2, page: 2, pageSize: 1 })
  expect(tasks.items.map((e) => e.kind === 'task' && e.workflowId)).toEqual([first.id])
  const received = await body<NumberedPage<InboxEntry>>(await s.r1.c.get('/api/inbox?kind=transmittals'))
  expect(received.items.map((e) => e.kind)).toEqual(['transmittal'])
  await expectProblem(await s.r1.c.get('/api/inbox?kind=letters'), 400, 'KR_VALIDATION')
  await expectProblem(await s.r1.c.get('/api/inbox?pageSize=500'), 400, 'KR_VALIDATION')

  // Answered tasks leave the inbox; nothing of theirs is in anyone else's.
  await body(await act(s.r1.c, first.id, 'approve'))
  expect((await body<NumberedPage<InboxEntry>>(await s.r1.c.get('/api/inbox?kind=tasks'))).total).toBe(1)
  expect((await body<NumberedPage<InboxEntry>>(await writer.c.get('/api/inbox'))).total).toBe(0)
})

test('a project’s list pages newest first and filters by status; the answer to a retried start with the same key is the same review', async () => {
  const s = await scene(3)
  const { admin, writer } = s.org
  const tpl = await template(admin, [step('Check', [s.r1.user.id])])
  const ids: string[] = []
  for (const [i, rev] of s.revs.entries()) {
    t.now.set(new Date(Date.parse(START) + i * 60_000))
    try {
      ids.push((await start(writer.c, s.project.id, { templateId: tpl.id, revisionIds: [rev.id] })).id)
    } finally {
      t.now.reset()
    }
  }
  await body(await act(s.r1.c, ids[0] as string, 'approve'))
  const page = await body<NumberedPage<WorkflowSummary>>(await writer.c.get(`/api/projects/${s.project.id}/workflows?pageSize=2`))
  expect(page).toMatchObject({ total: 3, page: 1, pageSize: 2 })
  expect(page.items.map((x) => x.id)).toEqual([ids[2], ids[1]])
  expect(page.items[0]).toMatchObject({ status: 'active', stepName: 'Check', pendingReviewers: [{ id: s.r1.user.id }], allowedActions: ['comment', 'reassign', 'cancel'] })
  expect(page.items[0]).not.toHaveProperty('tasks')
  const approved = await body<NumberedPage<WorkflowSummary>>(await writer.c.get(`/api/projects/${s.project.id}/workflows?status=approved`))
  expect(approved.items.map((x) => [x.id, x.stepName, x.pendingReviewers])).toEqual([[ids[0], null, []]])
  await expectProblem(await writer.c.get(`/api/projects/${s.project.id}/workflows?status=lost`), 400, 'KR_VALIDATION')

  const other = await newDocument(admin.c, s.project.id)
  const rev = await issue(writer.c, other.id, 'P01')
  const key = { headers: { 'idempotency-key': `start-${randomUUID()}` } }
  const json = { templateId: tpl.id, revisionIds: [rev.id] }
  const once = await body<Workflow>(await writer.c.request(`/api/projects/${s.project.id}/workflows`, { method: 'POST', json, ...key }), 201)
  const twice = await writer.c.request(`/api/projects/${s.project.id}/workflows`, { method: 'POST', json, ...key })
  expect(twice.headers.get('idempotent-replayed')).toBe('true')
  expect((await body<Workflow>(twice, 201)).id).toBe(once.id)
})

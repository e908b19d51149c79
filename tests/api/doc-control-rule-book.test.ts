import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Transmittal, Workflow, WorkflowStepDefinition, WorkflowTemplate } from '~/lib/doc-control/types'
import type { DocumentDetail, Revision } from '~/lib/documents/types'
import { auditOf, expectProblem, mailsTo, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { documentProject, newDocument, nextDocumentNumber, startRevisionUpload, uploadRevision } from '#tests/helpers/documents'
import { body, organisation, patch, put, type Signed } from '#tests/helpers/reporting-a'

/**
 * docs/doc-control.md "The rule book", through HTTP: a published review outcome on a preliminary
 * revision issues the next C revision (today's P02/A1 case), every refusal (field errors or a
 * problem with a code, nothing changed), Renumber with its walls, and the purpose check on send.
 */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-16T09:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

const bytes = (text: string) => new TextEncoder().encode(text)
const issue = (c: TestClient, documentId: string, code: string, status: string): Promise<Revision> =>
  uploadRevision(c, documentId, bytes(`${documentId} ${code}`), { code, status, fileName: 'drawing.txt', contentType: 'text/plain' })
const docOf = async (c: TestClient, id: string) => body<DocumentDetail>(await c.get(`/api/documents/${id}`))

const OUTCOMES: WorkflowStepDefinition['outcomes'] = [
  { kind: 'approved', label: 'Approved for construction', status: 'A1' },
  { kind: 'revise', label: 'Revise and resubmit', status: 'S3' },
]

async function approvedReview(admin: Signed, starter: TestClient, reviewer: Signed, projectId: string, revisionId: string): Promise<Workflow> {
  const step: WorkflowStepDefinition = {
    name: 'Approve',
    mode: 'serial',
    consolidate: 'strictest',
    reviewers: [{ type: 'user', userId: reviewer.user.id }],
    dueDays: 5,
    outcomes: OUTCOMES,
    onReject: { to: 'author' },
  }
  const tpl = await body<WorkflowTemplate>(await admin.c.post('/api/workflow-templates', { name: `Approval ${revisionId.slice(0, 8)}`, steps: [step] }), 201)
  const wf = await body<Workflow>(await starter.post(`/api/projects/${projectId}/workflows`, { templateId: tpl.id, revisionIds: [revisionId] }), 201)
  return body<Workflow>(await reviewer.c.post(`/api/workflows/${wf.id}/approve`, { outcome: 'approved' }))
}

async function sentTransmittal(c: TestClient, projectId: string, revisionIds: string[], userIds: string[], purpose = 'for-information'): Promise<Transmittal> {
  const made = await body<Transmittal>(await c.post(`/api/projects/${projectId}/transmittals`, { subject: 'Issue', purpose, revisionIds }), 201)
  await body(await put(c, `/api/transmittals/${made.id}/recipients`, { userIds, partyIds: [] }))
  return body<Transmittal>(await c.post(`/api/transmittals/${made.id}/send`, { confirmPurpose: true }))
}

test('regression: approving P02 for construction (A1) issues C01 with the same file instead of leaving P02/A1', async () => {
  const { admin, writer, reader } = await organisation(t)
  const p = await documentProject(admin.c)
  const d = await newDocument(admin.c, p.id)
  await issue(writer.c, d.id, 'P01', 'S0')
  const p02 = await issue(writer.c, d.id, 'P02', 'S3')
  const done = await approvedReview(admin, writer.c, admin, p.id, p02.id)
  expect(done.status).toBe('approved')
  expect(done.revisions).toEqual([expect.objectContaining({ code: 'C01', status: 'A1', state: 'Published' })])

  const after = await docOf(reader.c, d.id)
  expect(after).toMatchObject({ status: 'A1', state: 'Published', currentRevision: { code: 'C01', status: 'A1' }, numberLocked: true })
  const [c01, reviewed] = after.revisions
  expect(c01).toMatchObject({ code: 'C01', status: 'A1', superseded: false, sha256: p02.sha256, sizeBytes: p02.sizeBytes, fileName: p02.fileName })
  expect(reviewed).toMatchObject({ id: p02.id, code: 'P02', status: 'S3', superseded: true, supersededBy: { code: 'C01' } })
  expect(after.revisions.some((r) => r.code === 'P02' && r.status === 'A1')).toBe(false)
  // The same bytes download under C01.
  const file = await reader.c.get(c01?.downloadUrl ?? '')
  expect(file.status).toBe(200)
  expect(await file.text()).toBe(`${d.id} P02`)
  const audit = await auditOf(t.db, { action: 'documents.revision.issued', tenantId: admin.tenant.id })
  expect(audit.filter((a) => (a.data as { code?: string; workflowId?: string }).code === 'C01').map((a) => a.data)).toEqual([
    expect.objectContaining({ code: 'C01', status: 'A1', supersedes: 'P02', issuedFrom: p02.id, workflowId: done.id }),
  ])
})

test('after C01 further work is P02 (past every P the document had), and its approval issues C02: P01 → C01 → P02 → C02', async () => {
  const { admin, writer, reader } = await organisation(t)
  const p = await documentProject(admin.c)
  const d = await newDocument(admin.c, p.id)
  await issue(writer.c, d.id, 'P01', 'S3')
  const first = await approvedReview(admin, writer.c, admin, p.id, (await docOf(reader.c, d.id)).currentRevision?.id ?? '')
  expect(first.revisions).toEqual([expect.objectContaining({ code: 'C01', status: 'A1' })])
  // P01 again is no further work: refused, naming P02.
  const again = await expectProblem(await startRevisionUpload(writer.c, d.id, 10, { code: 'P01', status: 'S3' }), 400)
  expect(again.errors?.code).toEqual(['The revision must come after the current one, C01: P02 is next.'])
  const p02 = await issue(writer.c, d.id, 'P02', 'S3')
  const reworked = await docOf(reader.c, d.id)
  expect(reworked).toMatchObject({ status: 'S3', state: 'Shared', currentRevision: { code: 'P02' } })
  expect(reworked.revisions.find((r) => r.code === 'C01')).toMatchObject({ superseded: true, supersededBy: { code: 'P02' } })
  const second = await approvedReview(admin, writer.c, admin, p.id, p02.id)
  expect(second.revisions).toEqual([expect.objectContaining({ code: 'C02', status: 'A1' })])
  expect((await docOf(reader.c, d.id)).revisions.map((r) => r.code)).toEqual(['C02', 'P02', 'C01', 'P01'])
})

test('refusals change nothing: a P code with a published suitability, a sub-revision under review, a C revision sent back to S', async () => {
  const { admin, writer } = await organisation(t)
  const p = await documentProject(admin.c)
  const d = await newDocument(admin.c, p.id)
  await issue(writer.c, d.id, 'P01', 'S0')
  const wrong = await expectProblem(await startRevisionUpload(writer.c, d.id, 10, { code: 'P02', status: 'A1' }), 400)
  expect(wrong.errors?.code).toEqual(['A published suitability (A1) takes a contractual revision code (C01, C02…), not P02.'])
  const contractual = await expectProblem(await startRevisionUpload(writer.c, d.id, 10, { code: 'C01', status: 'S3' }), 400)
  expect(contractual.errors?.code?.[0]).toContain('published suitability')

  const sub = await issue(writer.c, d.id, 'P01.1', 'S0')
  const tpl = await body<WorkflowTemplate>(
    await admin.c.post('/api/workflow-templates', {
      name: 'One step',
      steps: [{ name: 'Check', mode: 'serial', consolidate: 'strictest', reviewers: [{ type: 'user', userId: admin.user.id }], dueDays: 5, outcomes: OUTCOMES, onReject: { to: 'author' } }],
    }),
    201,
  )
  const refused = await expectProblem(await writer.c.post(`/api/projects/${p.id}/workflows`, { templateId: tpl.id, revisionIds: [sub.id] }), 422, 'KR_VALIDATION')
  expect(refused.errors?.revisionIds).toEqual([`${d.number} P01.1 is a work-in-progress sub-revision: upload it as P02 (a whole revision) before starting a review.`])
  expect(await docOf(writer.c, d.id)).toMatchObject({ status: 'S0', state: 'WIP', currentRevision: { code: 'P01.1', status: 'S0' } })
})

test('a published document keeps its number: the plain edit refuses with a field error; Renumber is for controllers, with a reason, and tells recipients', async () => {
  const { admin, writer, reader, tenant } = await organisation(t)
  const other = await organisation(t)
  const p = await documentProject(admin.c)
  const d = await newDocument(admin.c, p.id)
  const p01 = await issue(writer.c, d.id, 'P01', 'S2')
  // Before anything leaves, the plain edit renumbers.
  const early = await nextDocumentNumber(admin.c, p.id)
  expect(await body<DocumentDetail>(await patch(writer.c, `/api/documents/${d.id}`, { number: early }))).toMatchObject({ number: early, numberLocked: false })
  await sentTransmittal(writer.c, p.id, [p01.id], [reader.user.id])
  const locked = await docOf(writer.c, d.id)
  expect(locked.numberLocked).toBe(true)

  const target = await nextDocumentNumber(admin.c, p.id)
  const refused = await expectProblem(await patch(writer.c, `/api/documents/${d.id}`, { number: target, title: 'New title' }), 409, 'KR_DOCUMENT_LOCKED')
  expect(refused.errors?.number?.[0]).toContain('Renumber')
  // The title of the same request did not change either; a title alone still does.
  expect(await docOf(writer.c, d.id)).toMatchObject({ number: early, title: locked.title })
  expect(await body<DocumentDetail>(await patch(writer.c, `/api/documents/${d.id}`, { title: 'Ground floor plan' }))).toMatchObject({ title: 'Ground floor plan', number: early })

  // Read & Write and read-only: 403; another organisation: 404; nothing changed.
  await expectProblem(await writer.c.post(`/api/documents/${d.id}/renumber`, { number: target, reason: 'Wrong role code' }), 403, 'KR_FORBIDDEN')
  await expectProblem(await reader.c.post(`/api/documents/${d.id}/renumber`, { number: target, reason: 'Wrong role code' }), 403, 'KR_FORBIDDEN')
  await expectProblem(await other.admin.c.post(`/api/documents/${d.id}/renumber`, { number: target, reason: 'Wrong role code' }), 404)
  await expectProblem(await admin.c.post('/api/documents/not-a-document/renumber', { number: target, reason: 'Wrong role code' }), 404)
  // Every problem as a field error.
  const blank = await expectProblem(await admin.c.post(`/api/documents/${d.id}/renumber`, { number: target, reason: '  ' }), 400)
  expect(Object.keys(blank.errors ?? {})).toEqual(['reason'])
  const bad = await expectProblem(await admin.c.post(`/api/documents/${d.id}/renumber`, { number: 'SYM01-ARC', reason: 'Wrong role code' }), 400, 'KR_DOCUMENT_INVALID')
  expect(bad.errors?.number?.[0]).toContain('parts')
  const same = await expectProblem(await admin.c.post(`/api/documents/${d.id}/renumber`, { number: early.toLowerCase(), reason: 'Nothing' }), 400)
  expect(same.errors?.number).toEqual([`${early} is already its number.`])
  expect((await docOf(admin.c, d.id)).number).toBe(early)
  expect(await mailsTo(t.db, reader.user.email).then((m) => m.filter((x) => x.template === 'document-renumbered'))).toHaveLength(0)

  const done = await body<{ document: DocumentDetail; told: number }>(await admin.c.post(`/api/documents/${d.id}/renumber`, { number: target, reason: 'Issued under the wrong serial.' }))
  expect(done.told).toBe(1)
  expect(done.document).toMatchObject({ number: target, numberLocked: true })
  expect(done.document.renumbers).toEqual([{ atUtc: '2026-11-16T09:00:00.000Z', by: { id: admin.user.id, displayName: expect.any(String) }, from: early, to: target, reason: 'Issued under the wrong serial.', told: 1 }])
  const mails = (await mailsTo(t.db, reader.user.email)).filter((m) => m.template === 'document-renumbered')
  expect(mails).toHaveLength(1)
  expect(mails[0]?.subject).toBe(`Renumbered: ${early} is now ${target}`)
  expect(mails[0]?.textBody).toContain('Issued under the wrong serial.')
  const audit = await auditOf(t.db, { action: 'documents.document.renumbered', tenantId: tenant.id })
  expect(audit).toHaveLength(1)
  expect(audit[0]).toMatchObject({ actorUserId: admin.user.id })
  expect(audit[0]?.data).toMatchObject({ number: { from: early, to: target }, reason: 'Issued under the wrong serial.', told: 1 })
})

test('sending S3 “For construction” warns and asks to confirm; the warning and the confirmation stay on the transmittal', async () => {
  const { admin, writer, reader } = await organisation(t)
  const p = await documentProject(admin.c)
  const d = await newDocument(admin.c, p.id)
  const p01 = await issue(writer.c, d.id, 'P01', 'S3')
  const made = await body<Transmittal>(await writer.c.post(`/api/projects/${p.id}/transmittals`, { subject: 'IFC', purpose: 'for-construction', revisionIds: [p01.id] }), 201)
  await body(await put(writer.c, `/api/transmittals/${made.id}/recipients`, { userIds: [reader.user.id], partyIds: [] }))

  const warned = await expectProblem(await writer.c.post(`/api/transmittals/${made.id}/send`), 409, 'KR_PURPOSE_UNCONFIRMED')
  const warning = `${d.number} P01 is S3: “For construction” needs an authorised and accepted suitability (A1, A2…).`
  expect(warned.errors?.confirmPurpose).toEqual([warning])
  await expectProblem(await writer.c.post(`/api/transmittals/${made.id}/send`, { confirmPurpose: false }), 409, 'KR_PURPOSE_UNCONFIRMED')
  await expectProblem(await writer.c.post(`/api/transmittals/${made.id}/send`, { confirmPurpose: 'yes' }), 400)
  expect(await body<Transmittal>(await writer.c.get(`/api/transmittals/${made.id}`))).toMatchObject({ status: 'draft', purposeCheck: null })
  expect((await mailsTo(t.db, reader.user.email)).filter((m) => m.template === 'transmittal-sent')).toHaveLength(0)

  const sent = await body<Transmittal>(await writer.c.post(`/api/transmittals/${made.id}/send`, { confirmPurpose: true }))
  expect(sent).toMatchObject({ status: 'sent', purposeCheck: { warnings: [warning], confirmedBy: { id: writer.user.id }, confirmedAtUtc: '2026-11-16T09:00:00.000Z' } })
  expect((await body<Transmittal>(await reader.c.get(`/api/transmittals/${made.id}`))).purposeCheck?.warnings).toEqual([warning])

  // A revision that fits goes without asking, and keeps no check.
  const fits = await body<Transmittal>(await writer.c.post(`/api/projects/${p.id}/transmittals`, { subject: 'For review', purpose: 'for-review', revisionIds: [p01.id] }), 201)
  await body(await put(writer.c, `/api/transmittals/${fits.id}/recipients`, { userIds: [reader.user.id], partyIds: [] }))
  expect(await body<Transmittal>(await writer.c.post(`/api/transmittals/${fits.id}/send`))).toMatchObject({ status: 'sent', purposeCheck: null })
})

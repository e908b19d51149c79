import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { partyMembers, projectParties } from '#server/db/schema-doc-control'
import { withTenant } from '#server/db/tenancy'
import type { DocumentSet, Transmittal, TransmittalRecipient } from '~/lib/doc-control/types'
import type { DocumentDetail, Revision } from '~/lib/documents/types'
import { addMembership, auditOf, createUser, expectProblem, mailsTo, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, TEST_ORIGIN, type TestBackend } from '#tests/helpers/backend'
import { documentProject, newDocument, uploadRevision } from '#tests/helpers/documents'
import { body, changeLogOf, newProject, organisation, patch, put, signedMember, type Signed } from '#tests/helpers/reporting-a'

/** docs/doc-control.md "Transmittals" and "Transmittal states": drafts, numbering, sending, tracking per recipient, who may. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-20T09:00:00.000Z' })
})

afterAll(async () => {
  await t.close()
})

async function issued(c: TestClient, projectId: string, status = 'S2'): Promise<{ doc: DocumentDetail; revision: Revision }> {
  const doc = await newDocument(c, projectId)
  const revision = await uploadRevision(c, doc.id, randomBytes(48), { code: 'P01', status, fileName: 'sheet.bin' })
  return { doc, revision }
}

function draft(c: TestClient, projectId: string, json: Record<string, unknown> = {}): Promise<Response> {
  return c.post(`/api/projects/${projectId}/transmittals`, json)
}

/** A party of the project with these people, written as the parties API would. */
async function party(tenantId: string, projectId: string, name: string, userIds: string[]): Promise<string> {
  return withTenant(t.db, tenantId, async (tx) => {
    const [row] = await tx.insert(projectParties).values({ tenantId, projectId, name, role: 'task-team' }).returning({ id: projectParties.id })
    if (!row) throw new Error('no party')
    if (userIds.length > 0) await tx.insert(partyMembers).values(userIds.map((userId) => ({ tenantId, partyId: row.id, userId })))
    return row.id
  })
}

function byUser(recipients: TransmittalRecipient[], userId: string): TransmittalRecipient | undefined {
  return recipients.find((r) => r.userId === userId)
}

/** A sent transmittal of one revision from the writer to `to`. */
async function sent(sender: Signed, projectId: string, to: Signed[], extra: Record<string, unknown> = {}): Promise<{ transmittal: Transmittal; revision: Revision }> {
  const { revision } = await issued(sender.c, projectId)
  const made = await body<Transmittal>(await draft(sender.c, projectId, { subject: 'Drawings for review', revisionIds: [revision.id], ...extra }), 201)
  await body(await put(sender.c, `/api/transmittals/${made.id}/recipients`, { userIds: to.map((m) => m.user.id), partyIds: [] }))
  return { transmittal: await body<Transmittal>(await sender.c.post(`/api/transmittals/${made.id}/send`)), revision }
}

test('transmittals are numbered per project from the project code, one number each even when made at once', async () => {
  const { admin, writer } = await organisation(t)
  const p = await documentProject(admin.c, 'SYM01')
  const other = await documentProject(admin.c, 'OTH02')
  const first = await body<Transmittal>(await draft(writer.c, p.id), 201)
  expect(first).toMatchObject({
    number: 'SYM01-TRN-0001',
    status: 'draft',
    purpose: 'for-information',
    subject: '',
    wizardStep: 'revisions',
    revisions: [],
    recipients: [],
    mine: null,
    package: null,
  })
  const together = await Promise.all(Array.from({ length: 5 }, () => draft(writer.c, p.id)))
  const numbers = await Promise.all(together.map(async (r) => (await body<Transmittal>(r, 201)).number))
  expect(numbers.sort()).toEqual(['SYM01-TRN-0002', 'SYM01-TRN-0003', 'SYM01-TRN-0004', 'SYM01-TRN-0005', 'SYM01-TRN-0006'])
  expect((await body<Transmittal>(await draft(writer.c, other.id), 201)).number).toBe('OTH02-TRN-0001')
  const uncoded = await newProject(admin.c, { title: 'No code' })
  expect((await body<Transmittal>(await draft(writer.c, uncoded.id), 201)).number).toBe('TRN-0001')
})

test('a draft is changed by its sender; send names what is missing, then mails every recipient (parties expanded) and freezes it', async () => {
  const { admin, writer, reader, tenant } = await organisation(t)
  const p = await documentProject(admin.c)
  const teamA = await signedMember(t, 'read-write', tenant)
  const teamB = await signedMember(t, 'read-write', tenant)
  const suspended = await createUser(t.db)
  await addMembership(t.db, tenant.id, suspended.id, { status: 'suspended' })
  const partyId = await party(tenant.id, p.id, 'Structures Ltd', [teamA.user.id, teamB.user.id, suspended.id])
  const a = await issued(writer.c, p.id)
  const b = await issued(writer.c, p.id)
  const set = await body<DocumentSet>(await writer.c.post(`/api/projects/${p.id}/sets`, { name: 'Stage 4', revisionIds: [a.revision.id, b.revision.id] }), 201)

  const made = await body<Transmittal>(await draft(writer.c, p.id, { setId: set.id }), 201)
  expect(made.revisions.map((r) => r.revisionId)).toEqual([a.revision.id, b.revision.id])
  const incomplete = await expectProblem(await writer.c.post(`/api/transmittals/${made.id}/send`), 422, 'KR_TRANSMITTAL_INCOMPLETE')
  expect(Object.keys(incomplete.errors ?? {}).sort()).toEqual(['recipients', 'subject'])
  await body(await put(writer.c, `/api/transmittals/${made.id}/revisions`, { revisionIds: [] }))
  expect(Object.keys((await expectProblem(await writer.c.post(`/api/transmittals/${made.id}/send`), 422)).errors ?? {}).sort()).toEqual(['recipients', 'revisions', 'subject'])

  const changed = await body<Transmittal>(
    await patch(writer.c, `/api/transmittals/${made.id}`, {
      subject: 'Stage 4 <structural> drawings',
      purpose: 'for-review',
      message: 'Please review by Friday.',
      responseDueDate: '2026-11-27',
      wizardStep: 'message',
    }),
  )
  expect(changed).toMatchObject({ subject: 'Stage 4 <structural> drawings', purpose: 'for-review', responseDueDate: '2026-11-27', wizardStep: 'message' })
  await body(await put(writer.c, `/api/transmittals/${made.id}/revisions`, { revisionIds: [b.revision.id, a.revision.id] }))
  await expectProblem(await put(writer.c, `/api/transmittals/${made.id}/recipients`, { userIds: [suspended.id], partyIds: [] }), 422, 'KR_VALIDATION')
  const withRecipients = await body<Transmittal>(await put(writer.c, `/api/transmittals/${made.id}/recipients`, { userIds: [reader.user.id, teamA.user.id], partyIds: [partyId] }))
  // A party stands for its active people; someone chosen in person keeps no party.
  expect(withRecipients.recipients.map((r) => [r.userId, r.partyId, r.status]).sort()).toEqual(
    [
      [reader.user.id, null, 'pending'],
      [teamA.user.id, null, 'pending'],
      [teamB.user.id, partyId, 'pending'],
    ].sort(),
  )
  await expectProblem(await patch(admin.c, `/api/transmittals/${made.id}`, { subject: 123 }), 400)
  await expectProblem(await patch(writer.c, `/api/transmittals/${made.id}`, { responseDueDate: '27/11/2026' }), 400)

  const done = await body<Transmittal>(await writer.c.post(`/api/transmittals/${made.id}/send`))
  expect(done).toMatchObject({ status: 'sent', sentAt: '2026-11-20T09:00:00.000Z', sentBy: { id: writer.user.id } })
  expect(done.revisions.map((r) => r.revisionId)).toEqual([b.revision.id, a.revision.id])
  expect(done.recipients.every((r) => r.status === 'sent')).toBe(true)
  for (const person of [reader, teamA, teamB]) {
    const mails = await mailsTo(t.db, person.user.email)
    expect(mails.map((m) => m.template)).toEqual(['transmittal-sent'])
    expect(mails[0]?.subject).toBe(`Transmittal ${made.number}: Stage 4 <structural> drawings`)
    expect(mails[0]?.textBody).toContain(`${TEST_ORIGIN}/doc-control/transmittals/${made.id}?projectId=${p.id}`)
    expect(mails[0]?.textBody).toContain('Response due: 2026-11-27')
  }
  expect(await mailsTo(t.db, suspended.email)).toEqual([])

  await expectProblem(await patch(writer.c, `/api/transmittals/${made.id}`, { subject: 'Late change' }), 409, 'KR_TRANSMITTAL_STATE')
  await expectProblem(await put(writer.c, `/api/transmittals/${made.id}/revisions`, { revisionIds: [a.revision.id] }), 409, 'KR_TRANSMITTAL_STATE')
  await expectProblem(await put(writer.c, `/api/transmittals/${made.id}/recipients`, { userIds: [], partyIds: [] }), 409, 'KR_TRANSMITTAL_STATE')
  await expectProblem(await writer.c.post(`/api/transmittals/${made.id}/send`), 409, 'KR_TRANSMITTAL_STATE')
  const audit = await auditOf(t.db, { tenantId: tenant.id, action: 'doc-control.transmittal.sent' })
  expect(audit.map((a) => [a.actorUserId, a.data])).toEqual([[writer.user.id, { number: made.number, recipients: 3, outsideRecipients: 0, revisions: 2 }]])
  const log = (await changeLogOf(t, tenant.id)).filter((r) => r.entityId === made.id)
  expect(log[0]).toMatchObject({ entity: 'Transmittal', changeType: 'Created' })
  expect(log.length).toBeGreaterThanOrEqual(6)
})

test('each recipient’s opening, acknowledgement and response is tracked and shown to the sender; the transmittal rolls up; the sender closes it', async () => {
  const { admin, writer, reader, tenant } = await organisation(t)
  const p = await documentProject(admin.c)
  const other = await signedMember(t, 'read-write', tenant)
  const { transmittal } = await sent(writer, p.id, [reader, other], { responseDueDate: '2026-11-30' })

  // The sender sees who has not opened it yet.
  const before = await body<{ status: string; recipients: TransmittalRecipient[] }>(await writer.c.get(`/api/transmittals/${transmittal.id}/status`))
  expect(before.status).toBe('sent')
  expect(before.recipients.map((r) => r.status)).toEqual(['sent', 'sent'])

  t.now.set('2026-11-20T09:05:00.000Z')
  const opened = await body<Transmittal>(await reader.c.get(`/api/transmittals/${transmittal.id}`))
  expect(opened.mine).toMatchObject({ userId: reader.user.id, status: 'opened', openedAt: '2026-11-20T09:05:00.000Z' })
  // A recipient sees their own tracking, not the others'.
  expect(byUser(opened.recipients, other.user.id)).toMatchObject({ status: 'sent', openedAt: null })
  t.now.set('2026-11-20T09:06:00.000Z')
  expect((await body<Transmittal>(await reader.c.get(`/api/transmittals/${transmittal.id}`))).mine?.openedAt).toBe('2026-11-20T09:05:00.000Z')
  const senderView = await body<Transmittal>(await writer.c.get(`/api/transmittals/${transmittal.id}`))
  expect(byUser(senderView.recipients, reader.user.id)).toMatchObject({ status: 'opened', openedAt: '2026-11-20T09:05:00.000Z' })
  expect(byUser(senderView.recipients, other.user.id)).toMatchObject({ status: 'sent', openedAt: null })
  expect(senderView.mine).toBeNull()

  // The read-only recipient acknowledges: a receipt changes no document.
  const acknowledged = await body<Transmittal>(await reader.c.post(`/api/transmittals/${transmittal.id}/acknowledge`))
  expect(acknowledged.mine).toMatchObject({ status: 'acknowledged', acknowledgedAt: '2026-11-20T09:06:00.000Z' })
  expect(acknowledged.status).toBe('sent')
  await expectProblem(await reader.c.post(`/api/transmittals/${transmittal.id}/acknowledge`), 409, 'KR_TRANSMITTAL_STATE')
  // Acknowledging without having opened it first records the opening too.
  const both = await body<Transmittal>(await other.c.post(`/api/transmittals/${transmittal.id}/acknowledge`))
  expect(both.status).toBe('acknowledged')
  expect(both.mine).toMatchObject({ status: 'acknowledged', openedAt: '2026-11-20T09:06:00.000Z' })

  await expectProblem(await reader.c.post(`/api/transmittals/${transmittal.id}/respond`, { response: '  ' }), 400)
  const responded = await body<Transmittal>(await reader.c.post(`/api/transmittals/${transmittal.id}/respond`, { response: 'Comments on sheet 3.' }))
  expect(responded.status).toBe('acknowledged')
  expect(responded.mine).toMatchObject({ status: 'responded', response: 'Comments on sheet 3.' })
  await expectProblem(await reader.c.post(`/api/transmittals/${transmittal.id}/respond`, { response: 'Again' }), 409, 'KR_TRANSMITTAL_STATE')
  expect((await body<Transmittal>(await other.c.post(`/api/transmittals/${transmittal.id}/respond`, { response: 'No comments.' }))).status).toBe('responded')
  const status = await body<{ status: string; recipients: TransmittalRecipient[] }>(await writer.c.get(`/api/transmittals/${transmittal.id}/status`))
  expect(status.status).toBe('responded')
  expect(byUser(status.recipients, reader.user.id)).toMatchObject({ status: 'responded', response: 'Comments on sheet 3.' })

  await expectProblem(await reader.c.post(`/api/transmittals/${transmittal.id}/close`), 403, 'KR_FORBIDDEN')
  expect((await body<Transmittal>(await writer.c.post(`/api/transmittals/${transmittal.id}/close`))).status).toBe('closed')
  await expectProblem(await writer.c.post(`/api/transmittals/${transmittal.id}/close`), 409, 'KR_TRANSMITTAL_STATE')
  t.now.reset()

  const received = await auditOf(t.db, { tenantId: tenant.id, action: 'doc-control.transmittal.received' })
  expect(received.map((a) => (a.data as { event: string }).event)).toEqual(['opened', 'acknowledged', 'acknowledged', 'responded', 'responded'])

  // Without a response date, every acknowledgement is the end of it: acknowledged, never responded.
  const plain = await sent(writer, p.id, [reader])
  await body(await reader.c.post(`/api/transmittals/${plain.transmittal.id}/respond`, { response: 'Noted.' }))
  expect((await body<Transmittal>(await writer.c.get(`/api/transmittals/${plain.transmittal.id}`))).status).toBe('acknowledged')
  await body(await writer.c.post(`/api/transmittals/${plain.transmittal.id}/close`))
  await expectProblem(await reader.c.post(`/api/transmittals/${plain.transmittal.id}/acknowledge`), 409, 'KR_TRANSMITTAL_STATE')
})

test('who reads and who acts: drafts are their sender’s, recipients read what was sent to them, others need every revision; read-only never sends', async () => {
  const { admin, writer, reader, tenant } = await organisation(t)
  const p = await documentProject(admin.c)
  const bystander = await signedMember(t, 'read-write', tenant)
  const recipient = await signedMember(t, 'read-write', tenant)
  const { transmittal, revision } = await sent(writer, p.id, [recipient])
  const privateDraft = await body<Transmittal>(await draft(writer.c, p.id, { subject: 'Not yet' }), 201)

  await expectProblem(await draft(reader.c, p.id, { subject: 'From a reader' }), 403, 'KR_FORBIDDEN')
  await expectProblem(await bystander.c.get(`/api/transmittals/${privateDraft.id}`), 404, 'KR_NOT_FOUND')
  await expectProblem(await patch(bystander.c, `/api/transmittals/${privateDraft.id}`, { subject: 'Mine' }), 404, 'KR_NOT_FOUND')
  expect((await body<Transmittal>(await admin.c.get(`/api/transmittals/${privateDraft.id}`))).subject).toBe('Not yet')

  // A member who sees every revision reads a sent one, but is no recipient: no acknowledging, no closing.
  expect((await body<Transmittal>(await bystander.c.get(`/api/transmittals/${transmittal.id}`))).mine).toBeNull()
  await expectProblem(await bystander.c.post(`/api/transmittals/${transmittal.id}/acknowledge`), 403, 'KR_FORBIDDEN')
  await expectProblem(await bystander.c.post(`/api/transmittals/${transmittal.id}/close`), 403, 'KR_FORBIDDEN')
  await expectProblem(await recipient.c.post(`/api/transmittals/${transmittal.id}/close`), 403, 'KR_FORBIDDEN')
  // Without view on a revision in it, a transmittal is not there for them; its recipient still reads it.
  await body(await put(admin.c, `/api/documents/${revision.documentId}/permissions`, { entries: [{ subjectKind: 'role', subject: 'read-write', level: 'none' }] }))
  await expectProblem(await bystander.c.get(`/api/transmittals/${transmittal.id}`), 404, 'KR_NOT_FOUND')
  await expectProblem(await bystander.c.get(`/api/transmittals/${transmittal.id}/status`), 404, 'KR_NOT_FOUND')
  expect((await body<Transmittal>(await recipient.c.get(`/api/transmittals/${transmittal.id}`))).revisions.map((r) => r.revisionId)).toEqual([revision.id])

  const list = async (c: TestClient) => (await body<{ items: Transmittal[]; total: number }>(await c.get(`/api/projects/${p.id}/transmittals`))).items.map((x) => x.id)
  expect(await list(writer.c)).toEqual([privateDraft.id, transmittal.id])
  expect(await list(recipient.c)).toEqual([transmittal.id])
  expect(await list(bystander.c)).toEqual([])
  expect(await list(reader.c)).toEqual([transmittal.id])
  expect(await list(admin.c)).toEqual([privateDraft.id, transmittal.id])
  const drafts = await body<{ items: Transmittal[]; total: number }>(await writer.c.get(`/api/projects/${p.id}/transmittals?status=draft`))
  expect([drafts.total, drafts.items.map((x) => x.id)]).toEqual([1, [privateDraft.id]])
  await expectProblem(await writer.c.get(`/api/projects/${p.id}/transmittals?status=lost&page=0`), 400)

  // Discarding: a draft, by its sender only; a sent transmittal stays for good.
  await expectProblem(await bystander.c.delete(`/api/transmittals/${privateDraft.id}`), 404, 'KR_NOT_FOUND')
  await expectProblem(await recipient.c.delete(`/api/transmittals/${transmittal.id}`), 403, 'KR_FORBIDDEN')
  await expectProblem(await writer.c.delete(`/api/transmittals/${transmittal.id}`), 409, 'KR_TRANSMITTAL_STATE')
  expect((await writer.c.delete(`/api/transmittals/${privateDraft.id}`)).status).toBe(204)
  await expectProblem(await writer.c.get(`/api/transmittals/${privateDraft.id}`), 404, 'KR_NOT_FOUND')
  expect(await list(writer.c)).toEqual([transmittal.id])

  // Sending takes view on every revision, checked again at send.
  const hiddenDoc = await issued(admin.c, p.id)
  await body(await put(admin.c, `/api/documents/${hiddenDoc.doc.id}/permissions`, { entries: [{ subjectKind: 'user', subject: writer.user.id, level: 'none' }] }))
  await expectProblem(await draft(writer.c, p.id, { revisionIds: [hiddenDoc.revision.id] }), 404, 'KR_NOT_FOUND')
})

test('another organisation’s ids are 404 on every transmittal call', async () => {
  const mine = await organisation(t)
  const theirs = await organisation(t)
  const p = await documentProject(theirs.admin.c)
  const { transmittal, revision } = await sent(theirs.writer, p.id, [theirs.reader])
  const c = mine.admin.c
  const id = transmittal.id
  await expectProblem(await c.get(`/api/projects/${p.id}/transmittals`), 404, 'KR_NOT_FOUND')
  await expectProblem(await draft(c, p.id), 404, 'KR_NOT_FOUND')
  for (const response of [
    await c.get(`/api/transmittals/${id}`),
    await patch(c, `/api/transmittals/${id}`, { subject: 'x' }),
    await put(c, `/api/transmittals/${id}/revisions`, { revisionIds: [] }),
    await put(c, `/api/transmittals/${id}/recipients`, { userIds: [], partyIds: [] }),
    await c.post(`/api/transmittals/${id}/send`),
    await c.get(`/api/transmittals/${id}/status`),
    await c.post(`/api/transmittals/${id}/acknowledge`),
    await c.post(`/api/transmittals/${id}/respond`, { response: 'x' }),
    await c.post(`/api/transmittals/${id}/close`),
    await c.delete(`/api/transmittals/${id}`),
    await c.get('/api/transmittals/not-an-id'),
  ]) {
    await expectProblem(response, 404, 'KR_NOT_FOUND')
  }
  const own = await documentProject(c)
  await expectProblem(await draft(c, own.id, { revisionIds: [revision.id] }), 404, 'KR_NOT_FOUND')
  const mineDraft = await body<Transmittal>(await draft(c, own.id), 201)
  await expectProblem(await put(c, `/api/transmittals/${mineDraft.id}/recipients`, { userIds: [theirs.reader.user.id], partyIds: [] }), 404, 'KR_NOT_FOUND')
  const theirParty = await party(theirs.tenant.id, p.id, 'Their party', [])
  await expectProblem(await put(c, `/api/transmittals/${mineDraft.id}/recipients`, { userIds: [], partyIds: [theirParty] }), 404, 'KR_NOT_FOUND')
  const theirSet = await body<DocumentSet>(await theirs.admin.c.post(`/api/projects/${p.id}/sets`, { name: 'Theirs' }), 201)
  await expectProblem(await draft(c, own.id, { setId: theirSet.id }), 404, 'KR_NOT_FOUND')
})

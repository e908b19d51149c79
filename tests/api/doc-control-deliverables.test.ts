import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { eq } from 'drizzle-orm'
import { transmittalRevisions, transmittals, workflowRevisions, workflowTemplates, workflowTemplateVersions, workflows, workflowTasks } from '#server/db/schema-doc-control'
import { documentRevisions } from '#server/db/schema-documents'
import { withTenant } from '#server/db/tenancy'
import type { DeliverableImport, Deliverable, DeliverablePage, DocControlSummary, Party } from '~/lib/doc-control/types'
import { auditOf, expectProblem, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { documentProject, newDocument, pdfDocument, uploadRevision } from '#tests/helpers/documents'
import { body, organisation, patch, put, signedMember, type Signed } from '#tests/helpers/reporting-a'

/** docs/doc-control.md: the deliverables register (planned against issued, flags, CSV) and the dashboard's summary, through HTTP. */

let t: TestBackend

const NOW = '2026-11-20T09:00:00.000Z'
const DAY = 86_400_000

beforeAll(async () => {
  t = await createTestBackend({ now: NOW })
})

afterAll(async () => {
  await t.close()
})

async function deliverable(c: TestClient, projectId: string, json: Record<string, unknown>): Promise<Deliverable> {
  return body<Deliverable>(await c.post(`/api/projects/${projectId}/deliverables`, json), 201)
}

async function register(c: TestClient, projectId: string, query = ''): Promise<DeliverablePage> {
  return body<DeliverablePage>(await c.get(`/api/projects/${projectId}/deliverables${query}`))
}

function importCsv(c: TestClient, projectId: string, csv: string, type = 'text/csv'): Promise<Response> {
  return c.request(`/api/projects/${projectId}/deliverables/import`, { method: 'POST', body: csv, headers: { 'content-type': type } })
}

/** A sent transmittal of one revision, written as the transmittals API would store it (that API is not what is tested here). */
async function sendTransmittal(member: Signed, projectId: string, documentId: string, revisionId: string, sentAt: Date) {
  await withTenant(t.db, member.tenant.id, async (tx) => {
    const id = randomUUID()
    const seq = Math.floor(Math.random() * 1_000_000)
    await tx.insert(transmittals).values({
      tenantId: member.tenant.id,
      id,
      projectId,
      seq,
      number: `T-TRN-${seq}`,
      subject: 'Issue',
      status: 'sent',
      sentAt,
      sentBy: member.user.id,
      createdBy: member.user.id,
      revision: 1,
    })
    await tx.insert(transmittalRevisions).values({ tenantId: member.tenant.id, transmittalId: id, documentId, revisionId, position: 0 })
  })
}

/** Active reviews, one overdue by its pending task and one not, written directly (the workflow API is not what is tested here). */
async function activeReviews(member: Signed, projectId: string) {
  await withTenant(t.db, member.tenant.id, async (tx) => {
    const templateId = randomUUID()
    const versionId = randomUUID()
    await tx.insert(workflowTemplates).values({ tenantId: member.tenant.id, id: templateId, name: `Review ${templateId.slice(0, 6)}` })
    await tx.insert(workflowTemplateVersions).values({ tenantId: member.tenant.id, id: versionId, templateId, version: 1, steps: [] })
    const now = t.now()
    for (const [index, taskDue] of [new Date(now.getTime() - DAY), new Date(now.getTime() + 5 * DAY)].entries()) {
      const id = randomUUID()
      await tx.insert(workflows).values({
        tenantId: member.tenant.id,
        id,
        projectId,
        templateVersionId: versionId,
        status: 'active',
        currentStep: 0,
        dueAt: new Date(now.getTime() + 10 * DAY),
        startedBy: member.user.id,
        startedAt: now,
        revision: index + 1,
      })
      await tx.insert(workflowTasks).values({ tenantId: member.tenant.id, workflowId: id, step: 0, round: 1, assigneeId: member.user.id, status: 'pending', dueAt: taskDue })
    }
  })
}

test('planned against issued: a deliverable is issued from its first published revision or transmittal; late when its document is not issued by its due date, missing when there is none; on-track before', async () => {
  t.now.set(NOW)
  const { admin, reader } = await organisation(t)
  const p = await documentProject(admin.c, 'DLV01')
  const lead = await body<Party>(await admin.c.post(`/api/projects/${p.id}/parties`, { name: 'Architects', code: 'ARC', role: 'lead-appointed' }), 201)

  // Published: uploaded as C01 (A1) ten days ago.
  const published = await newDocument(admin.c, p.id)
  t.now.set(new Date(Date.parse(NOW) - 10 * DAY))
  await uploadRevision(admin.c, published.id, pdfDocument(), { code: 'C01', status: 'A1' })
  // Transmitted: a P01 (S2, not published) sent in a transmittal three days ago.
  const transmitted = await newDocument(admin.c, p.id)
  const p01 = await uploadRevision(admin.c, transmitted.id, pdfDocument(300, 300), { code: 'P01', status: 'S2' })
  t.now.set(NOW)
  await sendTransmittal(admin, p.id, transmitted.id, p01.id, new Date(Date.parse(NOW) - 3 * DAY))
  // Being worked on, not issued: shared for review only.
  const wip = await newDocument(admin.c, p.id)
  await uploadRevision(admin.c, wip.id, pdfDocument(200, 200), { code: 'P01', status: 'S3' })

  const past = [{ name: 'Stage 4', plannedDate: '2026-11-01' }]
  const a = await deliverable(admin.c, p.id, {
    number: published.number,
    title: 'Published one',
    partyId: lead.id,
    milestones: [{ name: 'Stage 5', plannedDate: '2027-02-01' }, ...past],
  })
  const b = await deliverable(admin.c, p.id, { number: transmitted.number.toLowerCase(), title: 'Transmitted one', milestones: past })
  const c = await deliverable(admin.c, p.id, { number: wip.number, title: 'Late one', milestones: past })
  const d = await deliverable(admin.c, p.id, { number: `${p.code}-ARC-ZZ-99-DR-A-9999`, title: 'Missing one', milestones: past })
  const e = await deliverable(admin.c, p.id, { number: `${p.code}-ARC-ZZ-99-DR-A-9998`, title: 'Future one', milestones: [{ name: 'Stage 4', plannedDate: '2026-11-20' }] })
  const f = await deliverable(admin.c, p.id, { number: `${p.code}-ARC-ZZ-99-DR-A-9997`, title: 'Unplanned one' })
  expect(a).toMatchObject({ flag: 'issued', documentId: published.id, firstIssuedAt: new Date(Date.parse(NOW) - 10 * DAY).toISOString(), partyId: lead.id })
  expect(b).toMatchObject({ flag: 'issued', documentId: transmitted.id, firstIssuedAt: new Date(Date.parse(NOW) - 3 * DAY).toISOString() })
  expect(c).toMatchObject({ flag: 'late', documentId: wip.id, firstIssuedAt: null })
  expect(d).toMatchObject({ flag: 'missing', documentId: null, firstIssuedAt: null })
  expect(e.flag).toBe('on-track')
  expect(f.flag).toBe('on-track')

  const all = await register(reader.c, p.id)
  expect(all.total).toBe(6)
  expect(all.counts).toEqual({ issued: 2, 'on-track': 2, late: 1, missing: 1 })
  expect((await register(reader.c, p.id, '?flag=late')).items.map((x) => x.id)).toEqual([c.id])
  expect((await register(reader.c, p.id, '?flag=missing')).items.map((x) => x.id)).toEqual([d.id])
  expect((await register(reader.c, p.id, '?q=future')).items.map((x) => x.id)).toEqual([e.id])
  const first = await register(reader.c, p.id, '?page=1&pageSize=4')
  const second = await register(reader.c, p.id, '?page=2&pageSize=4')
  expect(first.items).toHaveLength(4)
  expect(second.items).toHaveLength(2)
  expect(new Set([...first.items, ...second.items].map((x) => x.id)).size).toBe(6)
  await expectProblem(await reader.c.get(`/api/projects/${p.id}/deliverables?flag=late-ish`), 400, 'KR_VALIDATION')
  await expectProblem(await reader.c.get(`/api/projects/${p.id}/deliverables?pageSize=1000`), 400)
})

test('add, change and delete: field errors for a taken number and bad dates; party of another project is 404; managers only', async () => {
  t.now.set(NOW)
  const { admin, writer, reader } = await organisation(t)
  const p = await documentProject(admin.c, 'DLV02')
  const one = await deliverable(admin.c, p.id, { number: 'DLV02-ARC-ZZ-00-DR-A-0001', title: 'Ground floor plan', milestones: [{ name: 'Stage 4', plannedDate: '2027-01-15' }] })
  const taken = await expectProblem(
    await admin.c.post(`/api/projects/${p.id}/deliverables`, {
      number: 'dlv02-arc-zz-00-dr-a-0001',
      title: 'Again',
      milestones: [
        { name: 'S4', plannedDate: '2027-02-30' },
        { name: 's4', plannedDate: '2027-03-01' },
      ],
    }),
    400,
    'KR_VALIDATION',
  )
  expect(Object.keys(taken.errors ?? {}).sort()).toEqual(['milestones.0.plannedDate', 'milestones.1.name', 'number'])
  await expectProblem(await admin.c.post(`/api/projects/${p.id}/deliverables`, { number: '', title: '' }), 400)

  const changed = await body<Deliverable>(await patch(admin.c, `/api/deliverables/${one.id}`, { title: 'Ground floor GA', milestones: [] }))
  expect(changed).toMatchObject({ title: 'Ground floor GA', milestones: [], number: one.number, flag: 'on-track' })

  const otherProject = await documentProject(admin.c, 'DLV03')
  const elsewhere = await body<Party>(await admin.c.post(`/api/projects/${otherProject.id}/parties`, { name: 'Elsewhere', role: 'lead-appointed' }), 201)
  await expectProblem(await patch(admin.c, `/api/deliverables/${one.id}`, { partyId: elsewhere.id }), 404)

  for (const member of [writer, reader]) {
    await expectProblem(await member.c.post(`/api/projects/${p.id}/deliverables`, { number: 'X-1', title: 'Mine' }), 403, 'KR_FORBIDDEN')
    await expectProblem(await patch(member.c, `/api/deliverables/${one.id}`, { title: 'Mine' }), 403)
    await expectProblem(await member.c.delete(`/api/deliverables/${one.id}`), 403)
    await expectProblem(await importCsv(member.c, p.id, 'Number,Title\nX-1,Mine\n'), 403)
  }
  expect((await admin.c.delete(`/api/deliverables/${one.id}`)).status).toBe(204)
  await expectProblem(await admin.c.delete(`/api/deliverables/${one.id}`), 404)
  expect((await register(admin.c, p.id)).total).toBe(0)
  expect((await auditOf(t.db, { action: 'doc-control.deliverables.changed', actorUserId: admin.user.id })).length).toBe(3)
})

test('another organisation’s project and deliverables are 404 for every call', async () => {
  const { admin } = await organisation(t)
  const other = await signedMember(t, 'admin')
  const q = await documentProject(other.c, 'DLV04')
  const theirs = await deliverable(other.c, q.id, { number: 'DLV04-1', title: 'Theirs' })
  await expectProblem(await admin.c.get(`/api/projects/${q.id}/deliverables`), 404, 'KR_NOT_FOUND')
  await expectProblem(await admin.c.post(`/api/projects/${q.id}/deliverables`, { number: 'X', title: 'X' }), 404)
  await expectProblem(await admin.c.get(`/api/projects/${q.id}/deliverables/export`), 404)
  await expectProblem(await importCsv(admin.c, q.id, 'Number,Title\nX,Y\n'), 404)
  await expectProblem(await patch(admin.c, `/api/deliverables/${theirs.id}`, { title: 'Mine' }), 404)
  await expectProblem(await admin.c.delete(`/api/deliverables/${theirs.id}`), 404)
  await expectProblem(await admin.c.get(`/api/projects/${q.id}/doc-control/summary`), 404)
  await expectProblem(await admin.c.delete('/api/deliverables/not-an-id'), 404)
  expect((await register(other.c, q.id)).items.map((x) => x.title)).toEqual(['Theirs'])
})

test('CSV: export has one row per deliverable with plan, first issue and flag; import upserts by number and names every bad line', async () => {
  t.now.set(NOW)
  const { admin, reader } = await organisation(t)
  const p = await documentProject(admin.c, 'CSV01')
  await body(await admin.c.post(`/api/projects/${p.id}/parties`, { name: 'Riverside Architects', code: 'ARC', role: 'lead-appointed' }), 201)
  const structures = await body<Party>(await admin.c.post(`/api/projects/${p.id}/parties`, { name: 'Beam, Bolt & Co', role: 'lead-appointed' }), 201)
  const doc = await newDocument(admin.c, p.id)
  t.now.set(new Date(Date.parse(NOW) - 2 * DAY))
  await uploadRevision(admin.c, doc.id, pdfDocument(), { code: 'C01', status: 'A1' })
  t.now.set(NOW)
  await deliverable(admin.c, p.id, { number: doc.number, title: 'Plan, "ground"', partyId: structures.id, milestones: [{ name: 'Stage 4', plannedDate: '2026-12-01' }] })
  await deliverable(admin.c, p.id, { number: 'CSV01-X-0002', title: '=HYPERLINK("x")', milestones: [{ name: 'Stage 3', plannedDate: '2026-10-01' }] })

  const exported = await reader.c.get(`/api/projects/${p.id}/deliverables/export`)
  expect(exported.status).toBe(200)
  expect(exported.headers.get('content-type')).toBe('text/csv; charset=utf-8')
  expect(exported.headers.get('content-disposition')).toBe('attachment; filename="CSV01-deliverables.csv"')
  const lines = (await exported.text()).trimEnd().split('\r\n')
  expect(lines).toEqual([
    'Number,Title,Responsible party,Milestone: Stage 3,Milestone: Stage 4,Due,Document,First issued,Flag',
    `${doc.number},"Plan, ""ground""","Beam, Bolt & Co",,2026-12-01,2026-12-01,${doc.number},2026-11-18,issued`,
    `CSV01-X-0002,"'=HYPERLINK(""x"")",,2026-10-01,,2026-10-01,,,missing`,
  ])

  // The exported file comes back in unchanged: every line an update, nothing created, nothing wrong.
  const roundTrip = await body<DeliverableImport>(await importCsv(admin.c, p.id, lines.join('\r\n')))
  expect(roundTrip).toEqual({ created: 0, updated: 2, errors: [] })
  expect((await register(admin.c, p.id, '?q=HYPERLINK')).items[0]?.title).toBe('=HYPERLINK("x")')

  const csv = [
    '\uFEFFnumber,TITLE,Responsible party,Milestone: Stage 4,Colour',
    'CSV01-X-0003,New one,arc,2027-01-10,red',
    'csv01-x-0002,Renamed,,,',
    ',No number,,,',
    'CSV01-X-0004,Bad date,,2027-13-01,',
    'CSV01-X-0005,Unknown party,Nobody Ltd,,',
    'CSV01-X-0003,Twice,,,',
    '',
    '"CSV01-X-0006","Multi',
    'line title",ARC,2027-02-02,',
  ].join('\n')
  const result = await body<DeliverableImport>(await importCsv(admin.c, p.id, csv))
  expect(result.created).toBe(2)
  expect(result.updated).toBe(1)
  expect(result.errors.map((e) => e.line)).toEqual([1, 4, 5, 6, 7])
  expect(result.errors[0]?.message).toContain('Colour')
  expect(result.errors[1]?.message).toContain('number is empty')
  expect(result.errors[2]?.message).toContain('2027-13-01')
  expect(result.errors[3]?.message).toContain('Nobody Ltd')
  expect(result.errors[4]?.message).toContain('earlier line')

  const page = await register(admin.c, p.id)
  const byNumber = new Map(page.items.map((x) => [x.number, x]))
  expect(byNumber.get('CSV01-X-0003')).toMatchObject({ title: 'New one', milestones: [{ name: 'Stage 4', plannedDate: '2027-01-10' }], flag: 'on-track' })
  // An empty milestone cell removes that milestone; the party column empty clears the party; other milestones stay.
  expect(byNumber.get('csv01-x-0002')).toMatchObject({ title: 'Renamed', partyId: null, milestones: [{ name: 'Stage 3', plannedDate: '2026-10-01' }] })
  expect(byNumber.get('CSV01-X-0006')?.title).toBe('Multi\nline title')

  // JSON { csv } as the screen sends it; a file without the columns, another media type, a broken quote.
  expect(await body<DeliverableImport>(await admin.c.post(`/api/projects/${p.id}/deliverables/import`, { csv: 'Number,Title\nCSV01-X-0007,From JSON\n' }))).toEqual({
    created: 1,
    updated: 0,
    errors: [],
  })
  const noHeader = await expectProblem(await importCsv(admin.c, p.id, 'Code,Name\nA,B\n'), 400, 'KR_VALIDATION')
  expect(noHeader.errors?.csv?.[0]).toContain('Number and Title')
  await expectProblem(await importCsv(admin.c, p.id, ''), 400)
  await expectProblem(await importCsv(admin.c, p.id, 'Number,Title\nA,B\n', 'application/xml'), 415)
  await expectProblem(await admin.c.post(`/api/projects/${p.id}/deliverables/import`, { file: 'x' }), 400)
  const broken = await body<DeliverableImport>(await importCsv(admin.c, p.id, 'Number,Title\nCSV01-X-0008,Fine\n"CSV01-X-0009,Never closed\n'))
  expect(broken.created).toBe(1)
  expect(broken.errors).toEqual([{ line: 3, message: expect.stringContaining('not closed') }])
  // Text PostgreSQL cannot store is a line's problem, never a 500.
  const nul = await body<DeliverableImport>(await importCsv(admin.c, p.id, 'Number,Title\nCSV01-X-0010,Bad\u0000title\nCSV01-X-0011,Fine\n'))
  expect(nul).toEqual({ created: 1, updated: 0, errors: [{ line: 2, message: expect.stringContaining('control characters') }] })
  await expectProblem(await importCsv(admin.c, p.id, 'Number,Title\u0000\nA,B\n'), 400)
})

test('the summary counts documents by status and state, active and overdue reviews, transmittals awaiting acknowledgement, and issued vs planned per month', async () => {
  t.now.set(NOW)
  const { admin, reader } = await organisation(t)
  const p = await documentProject(admin.c, 'SUM01')
  const a = await newDocument(admin.c, p.id)
  const b = await newDocument(admin.c, p.id)
  const c = await newDocument(admin.c, p.id)
  t.now.set('2026-10-05T10:00:00.000Z')
  await uploadRevision(admin.c, a.id, pdfDocument(), { code: 'C01', status: 'A1' })
  const bp01 = await uploadRevision(admin.c, b.id, pdfDocument(300, 300), { code: 'P01', status: 'S2' })
  await uploadRevision(admin.c, c.id, pdfDocument(200, 200), { code: 'P01', status: 'S2' })
  t.now.set(NOW)
  await sendTransmittal(admin, p.id, b.id, bp01.id, new Date('2026-11-10T10:00:00.000Z'))
  await activeReviews(admin, p.id)
  await deliverable(admin.c, p.id, { number: a.number, title: 'A', milestones: [{ name: 'S4', plannedDate: '2026-09-15' }] })
  await deliverable(admin.c, p.id, { number: b.number, title: 'B', milestones: [{ name: 'S4', plannedDate: '2026-11-30' }] })
  await deliverable(admin.c, p.id, { number: 'SUM01-NONE-1', title: 'C', milestones: [{ name: 'S4', plannedDate: '2027-01-10' }] })

  const summary = await body<DocControlSummary>(await reader.c.get(`/api/projects/${p.id}/doc-control/summary`))
  expect(summary.byStatus).toEqual([
    { status: 'A1', count: 1 },
    { status: 'S2', count: 2 },
  ])
  expect(summary.byState).toEqual([
    { state: 'Published', count: 1 },
    { state: 'Shared', count: 2 },
  ])
  expect(summary.reviewsActive).toBe(2)
  expect(summary.reviewsOverdue).toBe(1)
  expect(summary.transmittalsAwaitingAcknowledgement).toBe(1)
  expect(summary.issuedVsPlanned).toEqual([
    { month: '2026-09', planned: 1, issued: 0 },
    { month: '2026-10', planned: 1, issued: 1 },
    { month: '2026-11', planned: 2, issued: 2 },
    { month: '2026-12', planned: 2, issued: 2 },
    { month: '2027-01', planned: 3, issued: 2 },
  ])

  // What the caller may not see is not counted.
  await body(await put(admin.c, `/api/documents/${c.id}/permissions`, { entries: [{ subjectKind: 'user', subject: reader.user.id, level: 'none' }] }))
  const narrowed = await body<DocControlSummary>(await reader.c.get(`/api/projects/${p.id}/doc-control/summary`))
  expect(narrowed.byState).toEqual([
    { state: 'Published', count: 1 },
    { state: 'Shared', count: 1 },
  ])
})

test('a revision approved by a review counts as issued when the review completed, not when it was uploaded', async () => {
  t.now.set(NOW)
  const { admin } = await organisation(t)
  const p = await documentProject(admin.c, 'DLV05')
  const doc = await newDocument(admin.c, p.id)
  t.now.set(new Date(Date.parse(NOW) - 20 * DAY))
  const p01 = await uploadRevision(admin.c, doc.id, pdfDocument(), { code: 'P01', status: 'S3' })
  t.now.set(NOW)
  const approvedAt = new Date(Date.parse(NOW) - 5 * DAY)
  await withTenant(t.db, admin.tenant.id, async (tx) => {
    const templateId = randomUUID()
    const versionId = randomUUID()
    const workflowId = randomUUID()
    await tx.insert(workflowTemplates).values({ tenantId: admin.tenant.id, id: templateId, name: 'Approval' })
    await tx.insert(workflowTemplateVersions).values({ tenantId: admin.tenant.id, id: versionId, templateId, version: 1, steps: [] })
    await tx.insert(workflows).values({
      tenantId: admin.tenant.id,
      id: workflowId,
      projectId: p.id,
      templateVersionId: versionId,
      status: 'approved',
      dueAt: approvedAt,
      startedBy: admin.user.id,
      startedAt: new Date(Date.parse(NOW) - 15 * DAY),
      completedAt: approvedAt,
      revision: 1,
    })
    await tx.insert(workflowRevisions).values({ tenantId: admin.tenant.id, workflowId, revisionId: p01.id, documentId: doc.id, round: 1 })
    await tx.update(documentRevisions).set({ status: 'A1' }).where(eq(documentRevisions.id, p01.id))
  })
  const planned = await deliverable(admin.c, p.id, { number: doc.number, title: 'Reviewed', milestones: [{ name: 'S4', plannedDate: '2026-11-01' }] })
  expect(planned).toMatchObject({ flag: 'issued', firstIssuedAt: approvedAt.toISOString() })
})

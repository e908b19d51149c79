import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { tenants, users } from '#server/db/schema'
import { workflowTemplates, workflowTemplateVersions } from '#server/db/schema-doc-control'
import { DEMO } from '#server/db/demo-accounts'
import { seedIfEmpty } from '#server/db/seed'
import { withTenant } from '#server/db/tenancy'
import { blobStoreFor } from '#server/storage/blob-stores'
import type { DeliverablePage, Party, ResponsibilityMatrix } from '~/lib/doc-control/types'
import { auditOf, expectProblem, signedInClient, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { documentProject } from '#tests/helpers/documents'
import { body, organisation, patch, put, signedMember } from '#tests/helpers/reporting-a'

/** docs/doc-control.md "Parties, matrix, deliverables, dashboard": parties, their people and the responsibility matrix, through HTTP. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-20T09:00:00.000Z' })
})

afterAll(async () => {
  await t.close()
})

async function party(c: TestClient, projectId: string, json: Record<string, unknown>): Promise<Party> {
  return body<Party>(await c.post(`/api/projects/${projectId}/parties`, json), 201)
}

async function parties(c: TestClient, projectId: string): Promise<Party[]> {
  return (await body<{ items: Party[] }>(await c.get(`/api/projects/${projectId}/parties`))).items
}

const OTHER_ID = '0190d7f1-5a3e-7c2b-9d4e-1f2a3b4c5d6e'

test('a manager adds the appointing party, a lead with its task team, and their people; the list reads appointing, then each lead with its teams', async () => {
  const { admin, writer, reader } = await organisation(t)
  const p = await documentProject(admin.c, 'PTY01')
  const client = await party(admin.c, p.id, { name: 'Riverside Holdings', role: 'appointing' })
  const arc = await party(admin.c, p.id, { name: 'Riverside Architects', code: 'arc', role: 'lead-appointed' })
  const str = await party(admin.c, p.id, { name: 'Beam Engineers', code: 'STR', role: 'lead-appointed' })
  const interiors = await party(admin.c, p.id, { name: 'Interiors team', role: 'task-team', parentId: arc.id })
  expect(arc).toMatchObject({ code: 'ARC', role: 'lead-appointed', parentId: null, members: [] })
  expect(interiors).toMatchObject({ role: 'task-team', parentId: arc.id, code: null })

  const withPeople = body<Party>(
    await put(admin.c, `/api/parties/${arc.id}/members`, {
      members: [
        { userId: writer.user.id, lead: false },
        { userId: admin.user.id, lead: true },
      ],
    }),
  )
  expect((await withPeople).members.map((m) => [m.userId, m.lead])).toEqual([
    [admin.user.id, true],
    [writer.user.id, false],
  ])

  // Anyone who reaches the project reads them, read-only members included.
  const list = await parties(reader.c, p.id)
  expect(list.map((x) => x.name)).toEqual([client.name, str.name, arc.name, interiors.name])
  expect(list.find((x) => x.id === arc.id)?.members.map((m) => m.displayName)).toEqual([admin.user.displayName, writer.user.displayName])
  expect((await auditOf(t.db, { action: 'doc-control.party.changed', actorUserId: admin.user.id })).length).toBe(5)

  // People replaced: the list is the new one.
  await body(await put(admin.c, `/api/parties/${arc.id}/members`, { members: [{ userId: reader.user.id }] }))
  expect((await parties(admin.c, p.id)).find((x) => x.id === arc.id)?.members).toEqual([
    { userId: reader.user.id, displayName: reader.user.displayName, email: reader.user.email, lead: false },
  ])
})

test('party rules answer every problem as field errors: one appointing party, a task team under a lead, unique names and codes, code shape', async () => {
  const { admin } = await organisation(t)
  const p = await documentProject(admin.c, 'PTY02')
  await party(admin.c, p.id, { name: 'Client', role: 'appointing' })
  const lead = await party(admin.c, p.id, { name: 'Lead', code: 'LDA', role: 'lead-appointed' })
  const team = await party(admin.c, p.id, { name: 'Team', role: 'task-team', parentId: lead.id })

  const second = await expectProblem(await admin.c.post(`/api/projects/${p.id}/parties`, { name: 'client', code: 'LDA', role: 'appointing' }), 400, 'KR_VALIDATION')
  expect(Object.keys(second.errors ?? {}).sort()).toEqual(['code', 'name', 'role'])
  const orphan = await expectProblem(await admin.c.post(`/api/projects/${p.id}/parties`, { name: 'Orphan', role: 'task-team' }), 400)
  expect(orphan.errors?.parentId).toBeDefined()
  const underTeam = await expectProblem(await admin.c.post(`/api/projects/${p.id}/parties`, { name: 'Deep', role: 'task-team', parentId: team.id }), 400)
  expect(underTeam.errors?.parentId?.[0]).toContain('lead appointed party')
  const badCode = await expectProblem(await admin.c.post(`/api/projects/${p.id}/parties`, { name: 'Coded', code: 'A-1', role: 'lead-appointed' }), 400)
  expect(badCode.errors?.code).toBeDefined()
  await expectProblem(await admin.c.post(`/api/projects/${p.id}/parties`, { name: '', role: 'nobody' }), 400)

  // A lead with task teams keeps its role, and is not removed while they work under it.
  const demote = await expectProblem(await patch(admin.c, `/api/parties/${lead.id}`, { role: 'appointing' }), 400)
  expect(demote.errors?.role).toBeDefined()
  await expectProblem(await admin.c.delete(`/api/parties/${lead.id}`), 409, 'KR_CONFLICT')
  const renamed = await body<Party>(await patch(admin.c, `/api/parties/${team.id}`, { name: 'Façade team', code: 'fac' }))
  expect(renamed).toMatchObject({ name: 'Façade team', code: 'FAC', parentId: lead.id })
  expect((await admin.c.delete(`/api/parties/${team.id}`)).status).toBe(204)
  expect((await admin.c.delete(`/api/parties/${lead.id}`)).status).toBe(204)
  expect((await parties(admin.c, p.id)).map((x) => x.name)).toEqual(['Client'])
  await expectProblem(await admin.c.delete(`/api/parties/${lead.id}`), 404, 'KR_NOT_FOUND')
})

test('only managers change parties and the matrix: read-write without manage and read-only members get 403; a manage entry at the project top is enough', async () => {
  const { admin, writer, reader } = await organisation(t)
  const p = await documentProject(admin.c, 'PTY03')
  const lead = await party(admin.c, p.id, { name: 'Lead', role: 'lead-appointed' })
  for (const member of [writer, reader]) {
    await expectProblem(await member.c.post(`/api/projects/${p.id}/parties`, { name: 'Mine', role: 'lead-appointed' }), 403, 'KR_FORBIDDEN')
    await expectProblem(await patch(member.c, `/api/parties/${lead.id}`, { name: 'Mine' }), 403)
    await expectProblem(await member.c.delete(`/api/parties/${lead.id}`), 403)
    await expectProblem(await put(member.c, `/api/parties/${lead.id}/members`, { members: [] }), 403)
    await expectProblem(await put(member.c, `/api/projects/${p.id}/matrix`, { entries: [] }), 403)
    expect((await parties(member.c, p.id)).map((x) => x.name)).toEqual(['Lead'])
  }
  // A manage entry makes the read-write member a manager; it never makes a read-only member one.
  await body(
    await put(admin.c, `/api/projects/${p.id}/permissions`, {
      entries: [
        { subjectKind: 'user', subject: writer.user.id, level: 'manage' },
        { subjectKind: 'user', subject: reader.user.id, level: 'manage' },
      ],
    }),
  )
  expect((await writer.c.post(`/api/projects/${p.id}/parties`, { name: 'Mine', role: 'lead-appointed' })).status).toBe(201)
  await expectProblem(await reader.c.post(`/api/projects/${p.id}/parties`, { name: 'Theirs', role: 'lead-appointed' }), 403)

  // Who cannot see the project at all gets 404, not 403.
  await body(await put(admin.c, `/api/projects/${p.id}/permissions`, { entries: [{ subjectKind: 'user', subject: reader.user.id, level: 'none' }] }))
  await expectProblem(await reader.c.get(`/api/projects/${p.id}/parties`), 404)
  await expectProblem(await reader.c.get(`/api/projects/${p.id}/matrix`), 404)
  await expectProblem(await patch(reader.c, `/api/parties/${lead.id}`, { name: 'Mine' }), 404)
})

test('another organisation’s ids are 404 everywhere: its project, its party, its people, its parties in a matrix; malformed ids too', async () => {
  const { admin } = await organisation(t)
  const other = await signedMember(t, 'admin')
  const p = await documentProject(admin.c, 'PTY04')
  const q = await documentProject(other.c, 'PTY04')
  const mine = await party(admin.c, p.id, { name: 'Mine', role: 'lead-appointed' })
  const theirs = await party(other.c, q.id, { name: 'Theirs', role: 'lead-appointed' })

  await expectProblem(await admin.c.get(`/api/projects/${q.id}/parties`), 404, 'KR_NOT_FOUND')
  await expectProblem(await admin.c.post(`/api/projects/${q.id}/parties`, { name: 'X', role: 'appointing' }), 404)
  await expectProblem(await patch(admin.c, `/api/parties/${theirs.id}`, { name: 'X' }), 404)
  await expectProblem(await admin.c.delete(`/api/parties/${theirs.id}`), 404)
  await expectProblem(await put(admin.c, `/api/parties/${theirs.id}/members`, { members: [] }), 404)
  await expectProblem(await put(admin.c, `/api/parties/${mine.id}/members`, { members: [{ userId: other.user.id, lead: true }] }), 404)
  await expectProblem(await put(admin.c, `/api/parties/${mine.id}/members`, { members: [{ userId: 'not-a-uuid' }] }), 404)
  await expectProblem(await admin.c.post(`/api/projects/${p.id}/parties`, { name: 'Team', role: 'task-team', parentId: theirs.id }), 400)
  await expectProblem(await admin.c.get(`/api/projects/${q.id}/matrix`), 404)
  await expectProblem(await put(admin.c, `/api/projects/${p.id}/matrix`, { entries: [{ discipline: 'A', docType: null, partyId: theirs.id, responsibility: 'produce' }] }), 404)
  await expectProblem(await admin.c.get('/api/projects/nope/parties'), 404)
  await expectProblem(await patch(admin.c, `/api/parties/${OTHER_ID}`, { name: 'X' }), 404)
  await expectProblem(await admin.c.delete('/api/parties/%00'), 400)
  expect((await parties(other.c, q.id)).map((x) => x.name)).toEqual(['Theirs'])
})

test('the matrix: disciplines and types come from the naming standard; PUT replaces every cell; unknown codes are field errors; cells go with their party', async () => {
  const { admin, reader } = await organisation(t)
  const p = await documentProject(admin.c, 'MTX01')
  const arc = await party(admin.c, p.id, { name: 'Architects', code: 'ARC', role: 'lead-appointed' })
  const str = await party(admin.c, p.id, { name: 'Structures', code: 'STR', role: 'lead-appointed' })
  const empty = await body<ResponsibilityMatrix>(await reader.c.get(`/api/projects/${p.id}/matrix`))
  expect(empty.entries).toEqual([])
  expect(empty.disciplines.map((d) => d.code)).toEqual(expect.arrayContaining(['A', 'S', 'M']))
  expect(empty.docTypes.map((d) => d.code)).toEqual(expect.arrayContaining(['DR', 'SP']))

  const saved = await body<ResponsibilityMatrix>(
    await put(admin.c, `/api/projects/${p.id}/matrix`, {
      entries: [
        { discipline: 'a', docType: null, partyId: arc.id, responsibility: 'produce' },
        { discipline: 'A', partyId: str.id, responsibility: 'review' },
        { discipline: 'A', docType: '', partyId: arc.id, responsibility: 'produce' },
        { discipline: 'S', docType: 'DR', partyId: str.id, responsibility: 'produce' },
        { discipline: 'S', docType: 'DR', partyId: arc.id, responsibility: 'review' },
      ],
    }),
  )
  expect(saved.entries).toHaveLength(4)
  expect(saved.entries).toContainEqual({ discipline: 'A', docType: null, partyId: arc.id, responsibility: 'produce' })
  expect(saved.entries).toContainEqual({ discipline: 'S', docType: 'DR', partyId: arc.id, responsibility: 'review' })
  expect((await body<ResponsibilityMatrix>(await reader.c.get(`/api/projects/${p.id}/matrix`))).entries).toEqual(saved.entries)

  const wrong = await expectProblem(
    await put(admin.c, `/api/projects/${p.id}/matrix`, {
      entries: [
        { discipline: 'QQ', docType: null, partyId: arc.id, responsibility: 'produce' },
        { discipline: 'A', docType: 'ZZ', partyId: arc.id, responsibility: 'review' },
      ],
    }),
    400,
    'KR_VALIDATION',
  )
  expect(Object.keys(wrong.errors ?? {}).sort()).toEqual(['entries.0.discipline', 'entries.1.docType'])
  await expectProblem(await put(admin.c, `/api/projects/${p.id}/matrix`, { entries: [{ discipline: 'A', partyId: arc.id, responsibility: 'approve' }] }), 400)
  expect((await body<ResponsibilityMatrix>(await admin.c.get(`/api/projects/${p.id}/matrix`))).entries).toHaveLength(4)

  // Removing a party takes its cells with it.
  expect((await admin.c.delete(`/api/parties/${str.id}`)).status).toBe(204)
  const after = await body<ResponsibilityMatrix>(await admin.c.get(`/api/projects/${p.id}/matrix`))
  expect(after.entries.every((e) => e.partyId === arc.id)).toBe(true)
  expect(after.entries).toHaveLength(2)
  expect((await auditOf(t.db, { action: 'doc-control.matrix.changed', actorUserId: admin.user.id })).length).toBe(1)
})

test('an archived project keeps its parties readable and refuses changes (409)', async () => {
  const { admin } = await organisation(t)
  const p = await documentProject(admin.c, 'PTY05')
  await party(admin.c, p.id, { name: 'Lead', role: 'lead-appointed' })
  expect((await admin.c.post(`/api/projects/${p.id}/archive`)).status).toBeLessThan(300)
  expect((await parties(admin.c, p.id)).map((x) => x.name)).toEqual(['Lead'])
  await expectProblem(await admin.c.post(`/api/projects/${p.id}/parties`, { name: 'Late', role: 'lead-appointed' }), 409)
})

test('the demo seed gives Riverside (RSAA) its parties, a matrix, a register meeting its documents, and the Design review template', async () => {
  expect(await seedIfEmpty(t.db, { store: blobStoreFor(t.config) })).toBe(true)
  // The seed plans relative to the day it ran: read the register on that day.
  t.now.set(Date.now())
  const [demo] = await t.db.select({ id: tenants.id }).from(tenants).where(eq(tenants.slug, DEMO.tenant.slug))
  const [admin] = await t.db.select({ id: users.id }).from(users).where(eq(users.email, DEMO.admin.email))
  const [user] = await t.db.select({ id: users.id }).from(users).where(eq(users.email, DEMO.user.email))
  const c = await signedInClient(t, { user: { id: admin?.id ?? '' }, tenant: { id: demo?.id ?? '' } })
  const projects = await body<{ items: Array<{ id: string; code: string | null }> }>(await c.get('/api/projects?limit=100'))
  const riverside = projects.items.find((p) => p.code === 'RSA-A')
  expect(riverside).toBeDefined()
  const list = await parties(c, riverside?.id ?? '')
  expect(list.map((p) => [p.name, p.code, p.role])).toEqual([
    ['Riverside Developments Ltd', 'RDL', 'appointing'],
    ['Riverside Architects', 'ARC', 'lead-appointed'],
    ['Beam Structures', 'STR', 'task-team'],
  ])
  expect(list[1]?.members.map((m) => [m.userId, m.lead])).toEqual([
    [admin?.id, true],
    [user?.id, false],
  ])
  const matrix = await body<ResponsibilityMatrix>(await c.get(`/api/projects/${riverside?.id}/matrix`))
  expect(matrix.entries).toContainEqual({ discipline: 'A', docType: null, partyId: list[1]?.id, responsibility: 'produce' })
  const register = await body<DeliverablePage>(await c.get(`/api/projects/${riverside?.id}/deliverables`))
  expect(register.counts).toEqual({ issued: 1, 'on-track': 3, late: 1, missing: 1 })
  expect(register.items.find((d) => d.flag === 'issued')?.number).toBe('RSAA-STR-ZZ-XX-DR-S-0100')
  const templates = await withTenant(t.db, demo?.id ?? '', (tx) =>
    tx
      .select({ name: workflowTemplates.name, version: workflowTemplateVersions.version, steps: workflowTemplateVersions.steps })
      .from(workflowTemplates)
      .innerJoin(workflowTemplateVersions, eq(workflowTemplateVersions.templateId, workflowTemplates.id)),
  )
  expect(templates.map((x) => [x.name, x.version, x.steps.map((s) => s.name)])).toEqual([['Design review', 1, ['Design team check', 'Client approval']]])
  t.now.set('2026-11-20T09:00:00.000Z')
})

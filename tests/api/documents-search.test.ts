import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { documents } from '#server/db/schema-documents'
import { withTenant } from '#server/db/tenancy'
import type { DocumentDetail, Folder, PermissionLevel, SearchPage } from '~/lib/documents/types'
import { expectProblem, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, newProject, organisation, put, signedMember } from '#tests/helpers/reporting-a'

/** GET /api/documents/search (docs/documents.md "Search"), on both databases. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2025-06-02T08:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

// ---- Local helpers: test data through the API, a few rows written directly ----

async function project(c: TestClient, code = 'SYM01'): Promise<string> {
  return (await newProject(c, { title: `Project ${code}`, code })).id
}

async function folder(c: TestClient, projectId: string, name: string, parentId?: string): Promise<Folder> {
  return body<Folder>(await c.post(`/api/projects/${projectId}/folders`, { name, ...(parentId && { parentId }) }), 201)
}

async function doc(c: TestClient, projectId: string, number: string, title: string, extra: { folderId?: string; metadata?: Record<string, string> } = {}): Promise<DocumentDetail> {
  return body<DocumentDetail>(await c.post(`/api/projects/${projectId}/documents`, { number, title, ...extra }), 201)
}

async function search(c: TestClient, query: Record<string, string | number>): Promise<SearchPage> {
  return body<SearchPage>(await c.get(`/api/documents/search?${params(query)}`))
}

function params(query: Record<string, string | number>): string {
  return new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString()
}

async function numbers(c: TestClient, query: Record<string, string | number>): Promise<string[]> {
  return (await search(c, query)).items.map((d) => d.number)
}

async function grant(c: TestClient, target: 'projects' | 'folders' | 'documents', id: string, entries: Array<{ subjectKind: 'user' | 'role'; subject: string; level: PermissionLevel }>) {
  await body(await put(c, `/api/${target}/${id}/permissions`, { entries }))
}

/** A revision's suitability, as issuing one would leave the document (no bytes needed to search). */
async function setStatus(tenantId: string, documentId: string, status: string, state: 'WIP' | 'Shared' | 'Published') {
  await withTenant(t.db, tenantId, (tx) => tx.update(documents).set({ status, state }).where(and(eq(documents.tenantId, tenantId), eq(documents.id, documentId))))
}

// ---- Text ----

test('a word, a word begun, a partial number and a metadata value find the document; the number ranks first', async () => {
  const { admin, reader } = await organisation(t)
  const p = await project(admin.c)
  await body(await put(admin.c, `/api/projects/${p}/metadata-fields`, { fields: [{ key: 'author', label: 'Author', kind: 'text' }] }))
  const plan = await doc(admin.c, p, 'SYM01-ARC-Z1-03-DR-A-0012', 'General arrangement plan', { metadata: { author: 'Mottram Partners' } })
  await doc(admin.c, p, 'SYM01-ARC-Z1-03-DR-A-0120', 'Stair core sections')
  await doc(admin.c, p, 'SYM01-STR-Z1-03-DR-S-0012', 'Column schedule')
  await doc(admin.c, p, 'SYM01-ARC-Z1-03-DR-A-0013', 'Replaces A-0012 after review')

  expect(await numbers(reader.c, { q: 'general' })).toEqual([plan.number])
  expect(await numbers(reader.c, { q: 'Arrang' })).toEqual([plan.number])
  expect(await numbers(reader.c, { q: 'plan general' })).toEqual([plan.number])
  expect(await numbers(reader.c, { q: 'mottram' })).toEqual([plan.number])
  expect(await numbers(reader.c, { q: 'Mottram Partners' })).toEqual([plan.number])

  // "0012" is in two numbers (not in …-0120), in number order, then in a title.
  const partial = await search(reader.c, { q: '0012' })
  expect(partial.items.map((d) => d.number)).toEqual(['SYM01-ARC-Z1-03-DR-A-0012', 'SYM01-STR-Z1-03-DR-S-0012', 'SYM01-ARC-Z1-03-DR-A-0013'])
  expect(partial.total).toBe(3)
  // "A-0012": the number holding it before the title mentioning it.
  expect(await numbers(reader.c, { q: 'A-0012' })).toEqual(['SYM01-ARC-Z1-03-DR-A-0012', 'SYM01-ARC-Z1-03-DR-A-0013'])
  expect(await numbers(reader.c, { q: 'a-0012' })).toEqual(['SYM01-ARC-Z1-03-DR-A-0012', 'SYM01-ARC-Z1-03-DR-A-0013'])
  // The whole number, in any case; numbers that begin with q before the rest.
  expect(await numbers(reader.c, { q: 'sym01-arc-z1-03-dr-a-0012' })).toEqual(['SYM01-ARC-Z1-03-DR-A-0012'])
  expect((await numbers(reader.c, { q: 'SYM01-STR-Z1-03-DR-S-0012' }))[0]).toBe('SYM01-STR-Z1-03-DR-S-0012')
  const begun = await numbers(reader.c, { q: 'SYM01-ARC-Z1-03-DR-A-001' })
  expect(begun.slice(0, 2).sort()).toEqual(['SYM01-ARC-Z1-03-DR-A-0012', 'SYM01-ARC-Z1-03-DR-A-0013'])
  // A number named in another document's title: the number itself, or one beginning with q, comes first.
  await doc(admin.c, p, 'SYM01-ARC-Z1-03-DR-A-0001', 'See SYM01-ARC-Z1-03-DR-A-0120 for the stair')
  expect(await numbers(reader.c, { q: 'SYM01-ARC-Z1-03-DR-A-0120' })).toEqual(['SYM01-ARC-Z1-03-DR-A-0120', 'SYM01-ARC-Z1-03-DR-A-0001'])
  expect(await numbers(reader.c, { q: 'SYM01-ARC-Z1-03-DR-A-012' })).toEqual(['SYM01-ARC-Z1-03-DR-A-0120', 'SYM01-ARC-Z1-03-DR-A-0001'])

  const [item] = (await search(reader.c, { q: 'general' })).items
  expect(item).toMatchObject({ id: plan.id, projectId: p, folderId: null, title: 'General arrangement plan', discipline: 'A', docType: 'DR', status: 'S0', state: 'WIP', currentRevision: null })
  expect(await search(reader.c, { q: 'nothing-like-this' })).toEqual({ items: [], total: 0, page: 1, pageSize: 25 })
})

test('LIKE metacharacters in q mean themselves; any script is searched', async () => {
  const { admin } = await organisation(t)
  const c = (client: TestClient, q: string) => client.get(`/api/documents/search?${params({ q })}`)
  const p = await project(admin.c)
  // Numbers and titles chosen so no word of the others begins with what is typed.
  await doc(admin.c, p, 'SYM01-STR-Z1-02-DR-S-0001', 'Opening 10% larger')
  await doc(admin.c, p, 'SYM01-STR-Z1-02-DR-S-0002', 'Beam 2100 long')
  await doc(admin.c, p, 'SYM01-STR-Z1-02-DR-S-0003', 'Pipe x_y joint')
  await doc(admin.c, p, 'SYM01-STR-Z1-02-DR-S-0004', 'Pipe xzy joint')
  await doc(admin.c, p, 'SYM01-STR-Z1-02-DR-S-0005', 'Path m\\n here')
  await doc(admin.c, p, 'SYM01-STR-Z1-02-DR-S-0006', 'Path mn here')

  expect(await numbers(admin.c, { q: '10%' })).toEqual(['SYM01-STR-Z1-02-DR-S-0001'])
  expect(await numbers(admin.c, { q: 'x_y' })).toEqual(['SYM01-STR-Z1-02-DR-S-0003'])
  expect(await numbers(admin.c, { q: 'm\\n' })).toEqual(['SYM01-STR-Z1-02-DR-S-0005'])
  for (const q of ['%', '%%%', '_', '___', '\\', '\\\\\\', "'", '&|!:*()']) expect((await search(admin.c, { q })).total, q).toBe(0)
  // Any script: words of other alphabets are words; text with no word at all is matched as text.
  await doc(admin.c, p, 'SYM01-STR-Z1-02-DR-S-0007', 'Straße Übersicht 日本語 ١٢٣')
  for (const q of ['ÜBERSICHT', 'straße', '日本語', '١٢٣', 'übers']) expect(await numbers(admin.c, { q }), q).toEqual(['SYM01-STR-Z1-02-DR-S-0007'])
  for (const q of ['🏗️', '🏗️ straße', '—–', 'Ω']) expect((await c(admin.c, q)).status, q).toBe(200)
  // Blank q is no q: every document, in number order.
  expect((await search(admin.c, { q: '   ', projectId: p })).total).toBe(7)
})

// ---- Filters, paging, archived ----

test('filters by project, discipline, status and state; pages and totals', async () => {
  const { tenant, admin, writer } = await organisation(t)
  const p = await project(admin.c)
  const other = await project(admin.c, 'OTH')
  const made: DocumentDetail[] = []
  for (let n = 1; n <= 7; n++) made.push(await doc(writer.c, p, `SYM01-ARC-XX-00-DR-A-${String(n).padStart(4, '0')}`, `Elevation ${n}`))
  const beam = await doc(writer.c, p, 'SYM01-STR-XX-00-CA-S-0001', 'Beam calculation')
  await doc(writer.c, other, 'OTH-ARC-XX-00-DR-A-0001', 'Elevation elsewhere')
  await setStatus(tenant.id, (made[1] as DocumentDetail).id, 'S2', 'Shared')
  await setStatus(tenant.id, (made[4] as DocumentDetail).id, 'S2', 'Shared')
  await setStatus(tenant.id, beam.id, 'S2', 'Shared')
  await setStatus(tenant.id, (made[6] as DocumentDetail).id, 'A1', 'Published')

  expect((await search(writer.c, { projectId: p })).total).toBe(8)
  expect((await search(writer.c, {})).total).toBe(9)
  expect((await search(writer.c, { q: 'elevation' })).total).toBe(8)
  expect((await search(writer.c, { q: 'elevation', projectId: other })).total).toBe(1)
  expect(await numbers(writer.c, { projectId: p, discipline: 's' })).toEqual([beam.number])
  expect(await numbers(writer.c, { projectId: p, discipline: 'A', status: 's2' })).toEqual([made[1]?.number, made[4]?.number])
  expect(await numbers(writer.c, { status: 'S2' })).toEqual([made[1]?.number, made[4]?.number, beam.number])
  expect(await numbers(writer.c, { state: 'Published' })).toEqual([made[6]?.number])
  expect((await search(writer.c, { state: 'WIP', projectId: p })).total).toBe(4)

  // Pages in number order, the total on every page, an empty page past the end.
  const seen: string[] = []
  for (let page = 1; page <= 3; page++) {
    const answer = await search(writer.c, { projectId: p, discipline: 'A', pageSize: 3, page })
    expect(answer).toMatchObject({ total: 7, page, pageSize: 3 })
    seen.push(...answer.items.map((d) => d.number))
  }
  expect(seen).toEqual(made.map((d) => d.number))
  expect(await search(writer.c, { projectId: p, discipline: 'A', pageSize: 3, page: 4 })).toEqual({ items: [], total: 7, page: 4, pageSize: 3 })
  const ranked = await search(writer.c, { q: 'elevation', projectId: p, pageSize: 5, page: 2 })
  expect(ranked.items.map((d) => d.number)).toEqual(made.slice(5).map((d) => d.number))
  expect(ranked.total).toBe(7)
  // An empty parameter is no parameter (an HTML form sends one).
  expect((await search(writer.c, { projectId: p, discipline: '', status: '', state: '', page: '', pageSize: '', q: '', folderId: '' })).total).toBe(8)
})

test('archived documents are left out unless state=Archived asks for them', async () => {
  const { admin, reader } = await organisation(t)
  const p = await project(admin.c)
  const kept = await doc(admin.c, p, 'SYM01-ARC-Z1-01-DR-A-0001', 'Roof plan')
  const archived = await doc(admin.c, p, 'SYM01-ARC-Z1-01-DR-A-0002', 'Roof plan superseded')
  await body(await admin.c.request(`/api/documents/${archived.id}`, { method: 'PATCH', json: { archived: true } }))

  expect(await search(reader.c, { q: 'roof' })).toMatchObject({ total: 1, items: [{ id: kept.id }] })
  expect((await search(reader.c, { projectId: p })).total).toBe(1)
  expect(await search(reader.c, { q: 'roof', state: 'Archived' })).toMatchObject({ total: 1, items: [{ id: archived.id, state: 'Archived' }] })
  expect((await search(reader.c, { q: 'roof', state: 'WIP' })).total).toBe(1)
})

// ---- Folders ----

test('a folder lists what is directly in it; with q it searches the whole subtree', async () => {
  const { admin } = await organisation(t)
  const p = await project(admin.c)
  const a = await folder(admin.c, p, 'Drawings')
  const b = await folder(admin.c, p, 'Architecture', a.id)
  const c = await folder(admin.c, p, 'Level 03', b.id)
  const beside = await folder(admin.c, p, 'Reports')
  const inA = await doc(admin.c, p, 'SYM01-ARC-ZZ-ZZ-DR-A-0002', 'Site plan', { folderId: a.id })
  const inA2 = await doc(admin.c, p, 'SYM01-ARC-ZZ-ZZ-DR-A-0001', 'Location plan', { folderId: a.id })
  const inB = await doc(admin.c, p, 'SYM01-ARC-Z1-ZZ-DR-A-0003', 'Zone plan', { folderId: b.id })
  const inC = await doc(admin.c, p, 'SYM01-ARC-Z1-03-DR-A-0004', 'Level plan', { folderId: c.id })
  await doc(admin.c, p, 'SYM01-ARC-Z1-03-RP-A-0005', 'Plan report', { folderId: beside.id })
  await doc(admin.c, p, 'SYM01-ARC-XX-XX-DR-A-0006', 'Top plan')

  expect(await numbers(admin.c, { folderId: a.id })).toEqual([inA2.number, inA.number])
  expect(await numbers(admin.c, { folderId: c.id })).toEqual([inC.number])
  const subtree = await search(admin.c, { folderId: a.id, q: 'plan' })
  expect(subtree.items.map((d) => d.number).sort()).toEqual([inA2.number, inA.number, inB.number, inC.number].sort())
  expect(subtree.total).toBe(4)
  expect((await search(admin.c, { folderId: b.id, q: 'plan', projectId: p })).total).toBe(2)
  expect((await search(admin.c, { q: 'plan', projectId: p })).total).toBe(6)

  // Another project's folder with this projectId, an unknown folder: 404.
  const other = await project(admin.c, 'OTH')
  await expectProblem(await admin.c.get(`/api/documents/search?folderId=${a.id}&projectId=${other}`), 404)
  await expectProblem(await admin.c.get('/api/documents/search?folderId=00000000-0000-4000-8000-000000000000'), 404)
  await expectProblem(await admin.c.get('/api/documents/search?projectId=00000000-0000-4000-8000-000000000000'), 404)
})

// ---- Permissions ----

test('a folder entry of none hides everything below it from search and totals; a deeper view entry shows just that folder', async () => {
  const { admin, writer } = await organisation(t)
  const p = await project(admin.c)
  const secret = await folder(admin.c, p, 'Commercial')
  const open = await folder(admin.c, p, 'Shared extracts', secret.id)
  const closed = await folder(admin.c, p, 'Tenders', secret.id)
  const deep = await folder(admin.c, p, 'Returned', closed.id)
  await doc(admin.c, p, 'SYM01-GCO-XX-XX-CO-W-0001', 'Cost plan letter', { folderId: secret.id })
  const shown = await doc(admin.c, p, 'SYM01-GCO-XX-XX-CO-W-0002', 'Cost plan extract', { folderId: open.id })
  await doc(admin.c, p, 'SYM01-GCO-XX-XX-CO-W-0003', 'Cost plan tender', { folderId: closed.id })
  await doc(admin.c, p, 'SYM01-GCO-XX-XX-CO-W-0004', 'Cost plan returned', { folderId: deep.id })
  const top = await doc(admin.c, p, 'SYM01-GCO-XX-XX-CO-W-0005', 'Cost plan summary')
  await grant(admin.c, 'folders', secret.id, [{ subjectKind: 'user', subject: writer.user.id, level: 'none' }])
  await grant(admin.c, 'folders', open.id, [{ subjectKind: 'user', subject: writer.user.id, level: 'view' }])

  const queries: Array<Record<string, string>> = [{ q: 'cost' }, { q: 'plan', projectId: p }, { projectId: p }, {}, { q: 'W-000' }, { discipline: 'W' }]
  for (const query of queries) {
    const answer = await search(writer.c, query)
    expect(answer.items.map((d) => d.id).sort(), JSON.stringify(query)).toEqual([shown.id, top.id].sort())
    expect(answer.total, JSON.stringify(query)).toBe(2)
  }
  expect((await search(admin.c, { q: 'cost' })).total).toBe(5)
  // Commercial leads to what they may view: it is searched as a restricted folder (nothing of its own shows); Returned leads nowhere.
  expect(await search(writer.c, { folderId: secret.id })).toMatchObject({ items: [], total: 0 })
  expect(await numbers(writer.c, { folderId: secret.id, q: 'cost' })).toEqual([shown.number])
  await expectProblem(await writer.c.get(`/api/documents/search?folderId=${deep.id}&q=cost`), 404)
  expect(await numbers(writer.c, { folderId: open.id })).toEqual([shown.number])
  expect(await numbers(writer.c, { folderId: open.id, q: 'cost' })).toEqual([shown.number])

  // A document's own entry is nearer than its folder's.
  const letter = await doc(admin.c, p, 'SYM01-GCO-XX-XX-CO-W-0006', 'Cost plan appendix', { folderId: deep.id })
  await grant(admin.c, 'documents', letter.id, [{ subjectKind: 'user', subject: writer.user.id, level: 'view' }])
  expect((await search(writer.c, { q: 'cost' })).total).toBe(3)
  await grant(admin.c, 'documents', shown.id, [{ subjectKind: 'user', subject: writer.user.id, level: 'none' }])
  expect(await numbers(writer.c, { q: 'cost' })).toEqual([top.number, letter.number].sort())
})

test("a member's own entry beats their role's; a project hidden from them is never searched", async () => {
  const { tenant, admin, writer } = await organisation(t)
  const trusted = await signedMember(t, 'read-write', tenant)
  const p = await project(admin.c)
  const visibleElsewhere = await project(admin.c, 'OTH')
  await doc(admin.c, p, 'SYM01-MEP-XX-XX-SP-M-0001', 'Ventilation specification')
  const f = await folder(admin.c, p, 'Services')
  await doc(admin.c, p, 'SYM01-MEP-XX-XX-SP-M-0002', 'Ventilation schedule', { folderId: f.id })
  const seenElsewhere = await doc(admin.c, visibleElsewhere, 'OTH-MEP-XX-XX-SP-M-0001', 'Ventilation notes')
  await grant(admin.c, 'projects', p, [
    { subjectKind: 'role', subject: 'read-write', level: 'none' },
    { subjectKind: 'user', subject: trusted.user.id, level: 'view' },
  ])

  expect(await search(trusted.c, { q: 'ventilation', projectId: p })).toMatchObject({ total: 2 })
  expect((await search(trusted.c, { q: 'ventilation' })).total).toBe(3)
  expect(await search(writer.c, { q: 'ventilation' })).toMatchObject({ total: 1, items: [{ id: seenElsewhere.id }] })
  expect((await search(writer.c, {})).total).toBe(1)
  await expectProblem(await writer.c.get(`/api/documents/search?projectId=${p}`), 404)
  await expectProblem(await writer.c.get(`/api/documents/search?folderId=${f.id}`), 404)

  // The same at a folder: the role's none there, the member's own view.
  await grant(admin.c, 'projects', p, [])
  await grant(admin.c, 'folders', f.id, [
    { subjectKind: 'role', subject: 'read-write', level: 'none' },
    { subjectKind: 'user', subject: trusted.user.id, level: 'view' },
  ])
  expect((await search(trusted.c, { q: 'ventilation', projectId: p })).total).toBe(2)
  expect((await search(writer.c, { q: 'ventilation', projectId: p })).total).toBe(1)
  // A folder entry below view does not hide its project: the project's other documents stay found.
  expect((await search(writer.c, { q: 'ventilation' })).total).toBe(2)
})

test("another organisation's documents never appear, and its ids answer 404", async () => {
  const mine = await organisation(t)
  const theirs = await organisation(t)
  const p = await project(theirs.admin.c)
  const f = await folder(theirs.admin.c, p, 'Drawings')
  await doc(theirs.admin.c, p, 'SYM01-ARC-Z1-03-DR-A-0012', 'Confidential plan', { folderId: f.id })
  const own = await project(mine.admin.c)
  await doc(mine.admin.c, own, 'SYM01-ARC-Z1-03-DR-A-0012', 'Our plan')

  for (const q of ['confidential', '0012', 'A-0012', 'plan']) {
    const answer = await search(mine.admin.c, { q })
    expect(answer.items.every((d) => d.projectId === own), q).toBe(true)
    expect(answer.total, q).toBe(q === 'confidential' ? 0 : 1)
  }
  expect((await search(mine.admin.c, {})).total).toBe(1)
  await expectProblem(await mine.admin.c.get(`/api/documents/search?projectId=${p}`), 404)
  await expectProblem(await mine.admin.c.get(`/api/documents/search?folderId=${f.id}&q=plan`), 404)
})

// ---- Bad input ----

test('invalid query parameters answer 400 with field errors', async () => {
  const { reader } = await organisation(t)
  const cases: Array<[Record<string, string>, string]> = [
    [{ q: 'x'.repeat(101) }, 'q'],
    [{ pageSize: '0' }, 'pageSize'],
    [{ pageSize: '101' }, 'pageSize'],
    [{ pageSize: '2.5' }, 'pageSize'],
    [{ page: '0' }, 'page'],
    [{ page: 'two' }, 'page'],
    [{ page: '1000000' }, 'page'],
    [{ state: 'Draft' }, 'state'],
    [{ state: 'archived' }, 'state'],
    [{ status: 'Z9' }, 'status'],
    [{ discipline: 'A-B' }, 'discipline'],
    [{ projectId: 'not-a-project' }, 'projectId'],
    [{ folderId: "1' or '1'='1" }, 'folderId'],
  ]
  for (const [query, field] of cases) {
    const problem = await expectProblem(await reader.c.get(`/api/documents/search?${params(query)}`), 400, 'KR_VALIDATION')
    expect(Object.keys(problem.errors ?? {}), JSON.stringify(query)).toContain(field)
  }
  await expectProblem(await reader.c.get(`/api/documents/search?q=${encodeURIComponent('plan\u0000')}`), 400)
  // Signed out: 401.
  expect((await t.fetch('/api/documents/search?q=plan')).status).toBe(401)
})

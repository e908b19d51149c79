import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { DocumentSet } from '~/lib/doc-control/types'
import type { DocumentDetail, Revision } from '~/lib/documents/types'
import { auditOf, expectProblem, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { documentProject, newDocument, uploadRevision } from '#tests/helpers/documents'
import { body, changeLogOf, organisation, patch, put } from '#tests/helpers/reporting-a'

/** docs/doc-control.md "Sets": create, change, publish (freeze and stamp), derive; who may; immutability. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-20T09:00:00.000Z' })
})

afterAll(async () => {
  await t.close()
})

/** A new document with one revision issued at `status`. */
async function issued(c: TestClient, projectId: string, status = 'S2', code = 'P01'): Promise<{ doc: DocumentDetail; revision: Revision }> {
  const doc = await newDocument(c, projectId)
  const revision = await uploadRevision(c, doc.id, randomBytes(64), { code, status, fileName: 'sheet.bin' })
  return { doc, revision }
}

function newSet(c: TestClient, projectId: string, json: Record<string, unknown>): Promise<Response> {
  return c.post(`/api/projects/${projectId}/sets`, json)
}

test('a set is made, renamed and filled; publishing freezes it, stamps its revisions Published and records who, when and why', async () => {
  const { admin, writer, tenant } = await organisation(t)
  const p = await documentProject(admin.c)
  const shared = await issued(writer.c, p.id, 'S2')
  const approved = await issued(writer.c, p.id, 'A2', 'C01')
  const wip = await issued(writer.c, p.id, 'S0')

  const created = await body<DocumentSet>(await newSet(writer.c, p.id, { name: 'Tender issue', description: 'For the tender', revisionIds: [shared.revision.id] }), 201)
  expect(created).toMatchObject({ projectId: p.id, name: 'Tender issue', description: 'For the tender', status: 'draft', derivedFromId: null, published: null })
  expect(created.revisions.map((r) => [r.revisionId, r.code, r.status, r.state])).toEqual([[shared.revision.id, 'P01', 'S2', 'Shared']])

  const renamed = await body<DocumentSet>(await patch(writer.c, `/api/sets/${created.id}`, { name: 'Tender issue 1', description: '' }))
  expect(renamed).toMatchObject({ name: 'Tender issue 1', description: null })
  const filled = await body<DocumentSet>(await put(writer.c, `/api/sets/${created.id}/revisions`, { revisionIds: [approved.revision.id, shared.revision.id, wip.revision.id] }))
  expect(filled.revisions.map((r) => r.revisionId)).toEqual([approved.revision.id, shared.revision.id, wip.revision.id])

  t.now.set('2026-11-20T09:10:00.000Z')
  const published = await body<DocumentSet>(await writer.c.post(`/api/sets/${created.id}/publish`, { message: 'Issued for tender.', purpose: 'for-tender' }))
  t.now.reset()
  expect(published.status).toBe('published')
  expect(published.published).toEqual({
    at: '2026-11-20T09:10:00.000Z',
    by: { id: writer.user.id, displayName: writer.user.displayName },
    message: 'Issued for tender.',
    purpose: 'for-tender',
  })
  // S-codes (S0 too) become A1; an A-code is kept; every one reads Published.
  expect(published.revisions.map((r) => [r.status, r.state])).toEqual([
    ['A2', 'Published'],
    ['A1', 'Published'],
    ['A1', 'Published'],
  ])
  const doc = await body<DocumentDetail>(await writer.c.get(`/api/documents/${shared.doc.id}`))
  expect(doc).toMatchObject({ status: 'A1', state: 'Published' })
  // The rule book: A1 on a preliminary revision issues C01 (same file); P01 is superseded at S2, and the set holds C01.
  expect(doc.revisions[0]).toMatchObject({ code: 'C01', status: 'A1', sha256: shared.revision.sha256 })
  expect(doc.revisions[1]).toMatchObject({ id: shared.revision.id, code: 'P01', status: 'S2', superseded: true })
  expect(published.revisions.map((r) => r.code)).toEqual(['C01', 'C01', 'C01'])
  expect(await body<DocumentDetail>(await writer.c.get(`/api/documents/${wip.doc.id}`))).toMatchObject({ status: 'A1', state: 'Published' })

  expect(await body<DocumentSet>(await admin.c.get(`/api/sets/${created.id}`))).toEqual(published)
  const listed = await body<{ items: DocumentSet[]; total: number }>(await admin.c.get(`/api/projects/${p.id}/sets?status=published`))
  expect(listed.items.map((s) => s.id)).toEqual([created.id])
  expect(listed.total).toBe(1)

  const log = (await changeLogOf(t, tenant.id)).filter((r) => r.entityId === created.id)
  expect(log.map((r) => [r.entity, r.changeType])).toEqual([
    ['DocumentSet', 'Created'],
    ['DocumentSet', 'Updated'],
    ['DocumentSet', 'Updated'],
    ['DocumentSet', 'Updated'],
  ])
  const audit = await auditOf(t.db, { tenantId: tenant.id, action: 'doc-control.set.published' })
  expect(audit).toHaveLength(1)
  expect(audit[0]).toMatchObject({ actorUserId: writer.user.id, data: { purpose: 'for-tender', revisions: 3 } })
  const documentChanges = (await changeLogOf(t, tenant.id)).filter((r) => r.entity === 'Document' && r.entityId === shared.doc.id)
  expect(documentChanges.at(-1)?.changeType).toBe('Updated')
})

test('a published set cannot change; a draft derived from it can, and starts with the same revisions', async () => {
  const { writer } = await organisation(t)
  const p = await documentProject(writer.c)
  const a = await issued(writer.c, p.id)
  const b = await issued(writer.c, p.id)
  const set = await body<DocumentSet>(await newSet(writer.c, p.id, { name: 'IFC 1', revisionIds: [a.revision.id, b.revision.id] }), 201)
  await body(await writer.c.post(`/api/sets/${set.id}/publish`, { message: 'For construction', purpose: 'for-construction' }))

  await expectProblem(await patch(writer.c, `/api/sets/${set.id}`, { name: 'Changed' }), 409, 'KR_SET_PUBLISHED')
  await expectProblem(await put(writer.c, `/api/sets/${set.id}/revisions`, { revisionIds: [a.revision.id] }), 409, 'KR_SET_PUBLISHED')
  await expectProblem(await writer.c.post(`/api/sets/${set.id}/publish`, { message: 'Again', purpose: 'for-record' }), 409, 'KR_SET_PUBLISHED')
  const still = await body<DocumentSet>(await writer.c.get(`/api/sets/${set.id}`))
  expect(still.name).toBe('IFC 1')
  expect(still.revisions).toHaveLength(2)

  const derived = await body<DocumentSet>(await writer.c.post(`/api/sets/${set.id}/derive`, { name: 'IFC 2' }), 201)
  expect(derived).toMatchObject({ name: 'IFC 2', status: 'draft', derivedFromId: set.id, published: null })
  // Publishing issued C01 of each (the rule book); the derived set starts with those.
  expect(derived.revisions.map((r) => r.revisionId)).toEqual(still.revisions.map((r) => r.revisionId))
  expect(derived.revisions.map((r) => r.code)).toEqual(['C01', 'C01'])
  const [aC01, bC01] = still.revisions.map((r) => r.revisionId)
  const next = await uploadRevision(writer.c, a.doc.id, randomBytes(32), { code: 'C02', status: 'A1', fileName: 'sheet.bin' })
  // The derived set still names C01 of the first document: superseded since, it cannot be published until changed.
  await expectProblem(await writer.c.post(`/api/sets/${derived.id}/publish`, { message: 'IFC 2', purpose: 'for-construction' }), 409, 'KR_SET_SUPERSEDED')
  const changed = await body<DocumentSet>(await put(writer.c, `/api/sets/${derived.id}/revisions`, { revisionIds: [next.id, bC01] }))
  expect(changed.revisions.map((r) => r.code)).toEqual(['C02', 'C01'])
  expect((await body<DocumentSet>(await writer.c.get(`/api/sets/${set.id}`))).revisions.map((r) => r.revisionId)).toEqual([aC01, bC01])
})

test('set names are unique in a project whatever their case; bodies are checked; one revision per document; an empty set is not published', async () => {
  const { writer } = await organisation(t)
  const p = await documentProject(writer.c)
  const a = await issued(writer.c, p.id)
  const second = await uploadRevision(writer.c, a.doc.id, randomBytes(16), { code: 'P02', status: 'S2', fileName: 'sheet.bin' })
  const set = await body<DocumentSet>(await newSet(writer.c, p.id, { name: 'Stage 3' }), 201)
  const taken = await expectProblem(await newSet(writer.c, p.id, { name: 'STAGE 3' }), 409, 'KR_SET_NAME_TAKEN')
  expect(Object.keys(taken.errors ?? {})).toEqual(['name'])
  await expectProblem(await writer.c.post(`/api/sets/${set.id}/derive`, { name: 'stage 3' }), 409, 'KR_SET_NAME_TAKEN')
  expect(Object.keys((await expectProblem(await newSet(writer.c, p.id, { name: '  ' }), 400)).errors ?? {})).toEqual(['name'])
  expect(Object.keys((await expectProblem(await newSet(writer.c, p.id, { name: 'X', revisionIds: ['nope'] }), 400)).errors ?? {})).toEqual(['revisionIds.0'])
  await expectProblem(await put(writer.c, `/api/sets/${set.id}/revisions`, { revisionIds: [a.revision.id, second.id] }), 422, 'KR_VALIDATION')
  const publishBody = await expectProblem(await writer.c.post(`/api/sets/${set.id}/publish`, { message: '', purpose: 'for-lunch' }), 400)
  expect(Object.keys(publishBody.errors ?? {}).sort()).toEqual(['message', 'purpose'])
  const empty = await expectProblem(await writer.c.post(`/api/sets/${set.id}/publish`, { message: 'Go', purpose: 'for-review' }), 422)
  expect(Object.keys(empty.errors ?? {})).toEqual(['revisionIds'])
  expect((await body<DocumentSet>(await writer.c.get(`/api/sets/${set.id}`))).status).toBe('draft')
})

test('who may: read-only members read but never change; edit on every document is needed; what one cannot see is 404', async () => {
  const { admin, writer, reader } = await organisation(t)
  const p = await documentProject(admin.c)
  const open = await issued(admin.c, p.id)
  const viewOnly = await issued(admin.c, p.id)
  const hidden = await issued(admin.c, p.id)
  await body(await put(admin.c, `/api/documents/${viewOnly.doc.id}/permissions`, { entries: [{ subjectKind: 'user', subject: writer.user.id, level: 'view' }] }))
  await body(await put(admin.c, `/api/documents/${hidden.doc.id}/permissions`, { entries: [{ subjectKind: 'user', subject: writer.user.id, level: 'none' }] }))

  await expectProblem(await newSet(reader.c, p.id, { name: 'Reader set' }), 403, 'KR_FORBIDDEN')
  await expectProblem(await newSet(writer.c, p.id, { name: 'View only', revisionIds: [viewOnly.revision.id] }), 403, 'KR_FORBIDDEN')
  await expectProblem(await newSet(writer.c, p.id, { name: 'Hidden', revisionIds: [hidden.revision.id] }), 404, 'KR_NOT_FOUND')

  const mixed = await body<DocumentSet>(await newSet(admin.c, p.id, { name: 'Mixed', revisionIds: [open.revision.id, viewOnly.revision.id, hidden.revision.id] }), 201)
  // The writer reads the set with the revisions they may view; the hidden one is left out.
  const seen = await body<DocumentSet>(await writer.c.get(`/api/sets/${mixed.id}`))
  expect(seen.revisions.map((r) => r.revisionId)).toEqual([open.revision.id, viewOnly.revision.id])
  expect((await body<DocumentSet>(await reader.c.get(`/api/sets/${mixed.id}`))).revisions).toHaveLength(3)
  // Changing it takes edit on every document in it (one they cannot see included: they see the set).
  await expectProblem(await patch(writer.c, `/api/sets/${mixed.id}`, { name: 'Mine now' }), 403, 'KR_FORBIDDEN')
  await expectProblem(await writer.c.post(`/api/sets/${mixed.id}/derive`, { name: 'Copy' }), 403, 'KR_FORBIDDEN')
  await expectProblem(await patch(reader.c, `/api/sets/${mixed.id}`, { name: 'Mine now' }), 403, 'KR_FORBIDDEN')
  await expectProblem(await reader.c.post(`/api/sets/${mixed.id}/publish`, { message: 'x', purpose: 'for-record' }), 403, 'KR_FORBIDDEN')
  await expectProblem(await reader.c.post(`/api/sets/${mixed.id}/derive`, { name: 'Copy' }), 403, 'KR_FORBIDDEN')
  const editable = await body<DocumentSet>(await newSet(admin.c, p.id, { name: 'Editable', revisionIds: [open.revision.id] }), 201)
  await expectProblem(await put(writer.c, `/api/sets/${editable.id}/revisions`, { revisionIds: [open.revision.id, viewOnly.revision.id] }), 403, 'KR_FORBIDDEN')
  await body(await put(writer.c, `/api/sets/${editable.id}/revisions`, { revisionIds: [] }))
})

test('another organisation’s ids are 404 on every set call, and so are ids that are no ids', async () => {
  const mine = await organisation(t)
  const theirs = await organisation(t)
  const p = await documentProject(theirs.admin.c)
  const rev = await issued(theirs.admin.c, p.id)
  const set = await body<DocumentSet>(await newSet(theirs.admin.c, p.id, { name: 'Theirs', revisionIds: [rev.revision.id] }), 201)
  const c = mine.admin.c
  await expectProblem(await c.get(`/api/projects/${p.id}/sets`), 404, 'KR_NOT_FOUND')
  await expectProblem(await newSet(c, p.id, { name: 'Into theirs' }), 404, 'KR_NOT_FOUND')
  await expectProblem(await c.get(`/api/sets/${set.id}`), 404, 'KR_NOT_FOUND')
  await expectProblem(await patch(c, `/api/sets/${set.id}`, { name: 'Mine' }), 404, 'KR_NOT_FOUND')
  await expectProblem(await put(c, `/api/sets/${set.id}/revisions`, { revisionIds: [] }), 404, 'KR_NOT_FOUND')
  await expectProblem(await c.post(`/api/sets/${set.id}/publish`, { message: 'x', purpose: 'for-record' }), 404, 'KR_NOT_FOUND')
  await expectProblem(await c.post(`/api/sets/${set.id}/derive`, { name: 'Copy' }), 404, 'KR_NOT_FOUND')
  const own = await documentProject(c)
  await expectProblem(await newSet(c, own.id, { name: 'Their revision', revisionIds: [rev.revision.id] }), 404, 'KR_NOT_FOUND')
  await expectProblem(await c.get('/api/sets/not-a-set'), 404, 'KR_NOT_FOUND')
  await expectProblem(await c.get('/api/projects/not-a-project/sets'), 404, 'KR_NOT_FOUND')
  expect((await body<DocumentSet>(await theirs.admin.c.get(`/api/sets/${set.id}`))).name).toBe('Theirs')
})

test('a set holding an archived document is not published until the document is brought back', async () => {
  const { admin, writer } = await organisation(t)
  const p = await documentProject(admin.c)
  const a = await issued(writer.c, p.id)
  const set = await body<DocumentSet>(await newSet(writer.c, p.id, { name: 'With archive', revisionIds: [a.revision.id] }), 201)
  await body(await patch(admin.c, `/api/documents/${a.doc.id}`, { archived: true }))
  const refused = await expectProblem(await writer.c.post(`/api/sets/${set.id}/publish`, { message: 'Go', purpose: 'for-record' }), 409, 'KR_ARCHIVED')
  expect(refused.documents).toEqual([a.doc.number])
  expect((await body<DocumentSet>(await writer.c.get(`/api/sets/${set.id}`))).status).toBe('draft')
  await body(await patch(admin.c, `/api/documents/${a.doc.id}`, { archived: false }))
  expect((await body<DocumentSet>(await writer.c.post(`/api/sets/${set.id}/publish`, { message: 'Go', purpose: 'for-record' }))).status).toBe('published')
})

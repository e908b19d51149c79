import { afterAll, beforeAll, expect, test } from 'vitest'
import { eq } from 'drizzle-orm'
import { tenants, users } from '#server/db/schema'
import { DEMO } from '#server/db/demo-accounts'
import { seedIfEmpty } from '#server/db/seed'
import { blobStoreFor } from '#server/storage/blob-stores'
import type { DocumentDetail, Folder, FolderNode, MetadataField, NamingStandard, Permissions, SearchPage, ValidationResult } from '~/lib/documents/types'
import type { Project } from '~/lib/reporting/types'
import { auditOf, expectProblem, signedInClient, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, changeLogOf, organisation, patch, put, signedMember, type Signed } from '#tests/helpers/reporting-a'

/** docs/documents.md: folders, the tree, documents, naming, metadata and permissions, through HTTP. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-20T09:00:00.000Z' })
})

afterAll(async () => {
  await t.close()
})

async function project(c: TestClient, code = 'SYM01'): Promise<Project> {
  return body<Project>(await c.post('/api/projects', { title: 'Symphony Tower', code }), 201)
}

async function folder(c: TestClient, projectId: string, name: string, parentId: string | null = null): Promise<Folder> {
  return body<Folder>(await c.post(`/api/projects/${projectId}/folders`, { name, parentId }), 201)
}

async function tree(c: TestClient, projectId: string, query = ''): Promise<{ folder: Folder | null; folders: FolderNode[] }> {
  return body(await c.get(`/api/projects/${projectId}/documents/tree${query}`))
}

async function document(c: TestClient, projectId: string, number: string, folderId: string | null = null, extra: Record<string, unknown> = {}): Promise<DocumentDetail> {
  return body<DocumentDetail>(
    await c.post(`/api/projects/${projectId}/documents`, {
      number,
      title: `Drawing ${number}`,
      folderId,
      ...extra,
    }),
    201,
  )
}

async function setPermissions(
  c: TestClient,
  path: string,
  entries: Array<{
    subjectKind: 'user' | 'role'
    subject: string
    level: string
  }>,
): Promise<Permissions> {
  return body<Permissions>(await put(c, path, { entries }))
}

test('folders nest, answer their breadcrumbs, and the tree answers one level or the whole subtree with counts', async () => {
  const { admin } = await organisation(t)
  const p = await project(admin.c)
  const drawings = await folder(admin.c, p.id, 'Drawings')
  const arch = await folder(admin.c, p.id, 'Architecture', drawings.id)
  const levels = await folder(admin.c, p.id, 'Level 03', arch.id)
  await folder(admin.c, p.id, 'Specifications')
  await document(admin.c, p.id, 'SYM01-ARC-Z1-03-DR-A-0001', arch.id)
  await document(admin.c, p.id, 'SYM01-ARC-Z1-03-DR-A-0002', arch.id)

  expect(levels.breadcrumbs).toEqual([
    { id: drawings.id, name: 'Drawings' },
    { id: arch.id, name: 'Architecture' },
  ])
  const top = await tree(admin.c, p.id)
  expect(top.folder).toBeNull()
  expect(top.folders.map((f) => [f.name, f.folderCount, f.children])).toEqual([
    ['Drawings', 1, undefined],
    ['Specifications', 0, undefined],
  ])
  const all = await tree(admin.c, p.id, '?depth=all')
  const archNode = all.folders[0]?.children?.[0]
  expect(archNode).toMatchObject({
    name: 'Architecture',
    documentCount: 2,
    folderCount: 1,
  })
  expect(archNode?.children?.map((f) => f.name)).toEqual(['Level 03'])
  const under = await tree(admin.c, p.id, `?folderId=${drawings.id}&depth=2`)
  expect(under.folder?.name).toBe('Drawings')
  expect(under.folders.map((f) => f.name)).toEqual(['Architecture'])
  expect(under.folders[0]?.children?.map((f) => f.name)).toEqual(['Level 03'])
})

test('folder names are unique among siblings whatever their case; a move into itself or below is refused; a move carries the subtree', async () => {
  const { admin } = await organisation(t)
  const p = await project(admin.c)
  const a = await folder(admin.c, p.id, 'Drawings')
  const b = await folder(admin.c, p.id, 'Models', a.id)
  const c = await folder(admin.c, p.id, 'Federated', b.id)

  const taken = await expectProblem(await admin.c.post(`/api/projects/${p.id}/folders`, { name: 'drawings' }), 409, 'KR_FOLDER_NAME_TAKEN')
  expect(taken.errors?.name?.[0]).toContain('already a folder')
  const blank = await expectProblem(await admin.c.post(`/api/projects/${p.id}/folders`, { name: '   ' }), 400)
  expect(Object.keys(blank.errors ?? {})).toEqual(['name'])
  await expectProblem(await patch(admin.c, `/api/folders/${a.id}`, { parentId: c.id }), 409, 'KR_FOLDER_CYCLE')
  await expectProblem(await patch(admin.c, `/api/folders/${a.id}`, { parentId: a.id }), 409, 'KR_FOLDER_CYCLE')

  const moved = await body<Folder>(
    await patch(admin.c, `/api/folders/${b.id}`, {
      parentId: null,
      name: 'Models (federated)',
    }),
  )
  expect(moved).toMatchObject({
    parentId: null,
    name: 'Models (federated)',
    breadcrumbs: [],
  })
  const child = await body<Folder>(await admin.c.get(`/api/folders/${c.id}`))
  expect(child.breadcrumbs).toEqual([{ id: b.id, name: 'Models (federated)' }])
  // Back under Drawings, its child follows.
  await body(await patch(admin.c, `/api/folders/${b.id}`, { parentId: a.id }))
  expect((await body<Folder>(await admin.c.get(`/api/folders/${c.id}`))).breadcrumbs.map((x) => x.name)).toEqual(['Drawings', 'Models (federated)'])
  const log = await changeLogOf(t, admin.tenant.id)
  expect(log.filter((r) => r.entity === 'DocumentFolder' && r.entityId === b.id).map((r) => r.changeType)).toEqual(['Created', 'Updated', 'Updated'])
})

test('a document is named by the project standard; every problem of a bad one comes back at once, and nothing is stored', async () => {
  const { admin, tenant } = await organisation(t)
  const p = await project(admin.c)
  await body(
    await put(admin.c, `/api/projects/${p.id}/metadata-fields`, {
      fields: [
        {
          key: 'issue-date',
          label: 'Date of issue',
          kind: 'date',
          required: true,
        },
      ],
    }),
  )

  const bad = await expectProblem(
    await admin.c.post(`/api/projects/${p.id}/documents`, {
      number: 'SYM01-ARC-Z9-3-DR-Q-12',
      title: '  ',
      metadata: { 'issue-date': '2026-02-30', colour: 'red' },
    }),
    400,
    'KR_DOCUMENT_INVALID',
  )
  expect(bad.errors?.number).toEqual([
    "Volume/System “Z9” is not in the project's list (ZZ, XX, Z1, Z2, Z3).",
    "Level/Location “3” must be 2 letters or digits from the project's list.",
    "Role “Q” is not in the project's list (A, S, M, E, C, W, Z).",
    'Number “12” must be 4–6 digits.',
  ])
  expect(bad.errors?.title).toEqual(['Give the document a title.'])
  expect(bad.errors?.['metadata.issue-date']).toEqual(['Date of issue must be a date (YYYY-MM-DD).'])
  expect(bad.errors?.['metadata.colour']).toEqual(['This project has no such field.'])
  const parts = await expectProblem(
    await admin.c.post(`/api/projects/${p.id}/documents`, {
      number: 'SYM01-ARC-0001',
      title: 'x',
      metadata: { 'issue-date': '2026-02-01' },
    }),
    400,
  )
  expect(parts.errors?.number?.[0]).toBe('The number has 3 parts; it needs 7: Project-Originator-Volume/System-Level/Location-Type-Role-Number.')
  expect((await changeLogOf(t, tenant.id)).filter((r) => r.entity === 'Document')).toEqual([])

  const doc = await document(admin.c, p.id, 'sym01-arc-z1-03-dr-a-0012', null, {
    metadata: { 'issue-date': '2026-02-01' },
  })
  expect(doc).toMatchObject({
    number: 'SYM01-ARC-Z1-03-DR-A-0012',
    discipline: 'A',
    docType: 'DR',
    status: 'S0',
    state: 'WIP',
    currentRevision: null,
    revisions: [],
    metadata: { 'issue-date': '2026-02-01' },
    access: 'manage',
  })
  const again = await expectProblem(
    await admin.c.post(`/api/projects/${p.id}/documents`, {
      number: 'SYM01-ARC-Z1-03-DR-A-0012',
      title: 'Again',
      metadata: { 'issue-date': '2026-02-01' },
    }),
    400,
  )
  expect(again.errors?.number).toEqual(['SYM01-ARC-Z1-03-DR-A-0012 is already used in this project.'])

  const validation = await body<ValidationResult>(
    await admin.c.post(`/api/projects/${p.id}/documents/validate`, {
      number: 'SYM01-ARC-Z1-03-DR-A-0012',
      documentId: doc.id,
    }),
  )
  expect(validation).toEqual({
    valid: true,
    errors: {},
    parsed: {
      project: 'SYM01',
      originator: 'ARC',
      volume: 'Z1',
      level: '03',
      type: 'DR',
      role: 'A',
      number: '0012',
    },
  })
  const invalid = await body<ValidationResult>(
    await admin.c.post(`/api/projects/${p.id}/documents/validate`, {
      number: 'SYM01-ARC-Z1-03-DR-A-0012',
    }),
  )
  expect(invalid.valid).toBe(false)
  // A documentId that is not a document id is the caller's mistake (400), never the server's (500).
  const notAnId = await admin.c.post(`/api/projects/${p.id}/documents/validate`, { number: 'SYM01-ARC-Z1-03-DR-A-0012', documentId: '' })
  expect((await body<{ errors: Record<string, string[]> }>(notAnId, 400)).errors.documentId).toEqual(['documentId must be a document id.'])

  const audit = await auditOf(t.db, {
    tenantId: tenant.id,
    action: 'documents.document.created',
  })
  expect(audit).toHaveLength(1)
})

test('the naming standard and metadata fields are the project’s: a manager changes them, with every problem at once', async () => {
  const { admin, writer } = await organisation(t)
  const p = await project(admin.c, 'RIV')
  const standard = await body<NamingStandard>(await admin.c.get(`/api/projects/${p.id}/naming-standard`))
  expect(standard.fields.map((f) => f.key)).toEqual(['project', 'originator', 'volume', 'level', 'type', 'role', 'number'])
  expect(standard.example).toBe('RIV-ARC-ZZ-B1-DR-A-0001')

  const fields = standard.fields.map((f) =>
    f.key === 'level'
      ? {
          ...f,
          codes: [...(f.codes ?? []), { code: '04', description: 'Level 4' }],
        }
      : f,
  )
  await expectProblem(await put(writer.c, `/api/projects/${p.id}/naming-standard`, { fields }), 403, 'KR_FORBIDDEN')
  const changed = await body<NamingStandard>(await put(admin.c, `/api/projects/${p.id}/naming-standard`, { fields }))
  expect(changed.fields.find((f) => f.key === 'level')?.codes?.map((c) => c.code)).toContain('04')
  await document(admin.c, p.id, 'RIV-ARC-Z1-04-DR-A-0001')

  const broken = standard.fields.map((f) =>
    f.key === 'level'
      ? {
          ...f,
          codes: [
            { code: 'ABC', description: '' },
            { code: '01', description: '' },
            { code: '01', description: '' },
          ],
        }
      : f,
  )
  const problem = await expectProblem(
    await put(admin.c, `/api/projects/${p.id}/naming-standard`, {
      fields: broken,
    }),
    400,
  )
  expect(Object.keys(problem.errors ?? {}).sort()).toEqual(['fields.3.codes.0.code', 'fields.3.codes.2.code'])

  const meta = await expectProblem(
    await put(admin.c, `/api/projects/${p.id}/metadata-fields`, {
      fields: [
        { key: 'a', label: 'A', kind: 'choice' },
        { key: 'a', label: 'B', kind: 'text', options: ['x'] },
      ],
    }),
    400,
  )
  expect(Object.keys(meta.errors ?? {}).sort()).toEqual(['fields.0.options', 'fields.1.key', 'fields.1.options'])
  const saved = await body<{ items: MetadataField[] }>(
    await put(admin.c, `/api/projects/${p.id}/metadata-fields`, {
      fields: [
        {
          key: 'package',
          label: 'Package',
          kind: 'choice',
          options: ['Frame', 'Envelope'],
          required: true,
        },
        { key: 'sheets', label: 'Sheets', kind: 'number' },
      ],
    }),
  )
  expect(saved.items.map((f) => [f.key, f.position])).toEqual([
    ['package', 0],
    ['sheets', 1],
  ])
})

test('PUT …/metadata replaces the values after the checks; an edit needs the edit level', async () => {
  const { admin, reader } = await organisation(t)
  const p = await project(admin.c)
  await body(
    await put(admin.c, `/api/projects/${p.id}/metadata-fields`, {
      fields: [
        {
          key: 'package',
          label: 'Package',
          kind: 'choice',
          options: ['Frame', 'Envelope'],
          required: true,
        },
        { key: 'sheets', label: 'Sheets', kind: 'number' },
      ],
    }),
  )
  const doc = await document(admin.c, p.id, 'SYM01-STR-ZZ-00-DR-S-0100', null, {
    metadata: { package: 'Frame' },
  })

  const wrong = await expectProblem(
    await put(admin.c, `/api/documents/${doc.id}/metadata`, {
      values: { package: 'Roof', sheets: 'many' },
    }),
    400,
    'KR_DOCUMENT_INVALID',
  )
  expect(wrong.errors).toEqual({
    'metadata.package': ['Package must be one of: Frame, Envelope.'],
    'metadata.sheets': ['Sheets must be a number.'],
  })
  const missing = await expectProblem(
    await put(admin.c, `/api/documents/${doc.id}/metadata`, {
      values: { sheets: 3 },
    }),
    400,
  )
  expect(missing.errors).toEqual({
    'metadata.package': ['Package is required.'],
  })
  const saved = await body<DocumentDetail>(
    await put(admin.c, `/api/documents/${doc.id}/metadata`, {
      values: { package: 'Envelope', sheets: '12' },
    }),
  )
  expect(saved.metadata).toEqual({ package: 'Envelope', sheets: 12 })
  await expectProblem(
    await put(reader.c, `/api/documents/${doc.id}/metadata`, {
      values: { package: 'Frame' },
    }),
    403,
    'KR_FORBIDDEN',
  )
})

test('a document’s number, title and folder change; archiving needs manage and makes it read-only until it is brought back', async () => {
  const { admin, writer } = await organisation(t)
  const p = await project(admin.c)
  const f = await folder(admin.c, p.id, 'Drawings')
  const doc = await document(writer.c, p.id, 'SYM01-ARC-Z1-03-DR-A-0001')
  const moved = await body<DocumentDetail>(
    await patch(writer.c, `/api/documents/${doc.id}`, {
      folderId: f.id,
      title: 'Level 3 plan',
      number: 'SYM01-ARC-Z1-03-DR-A-0003',
    }),
  )
  expect(moved).toMatchObject({
    folderId: f.id,
    title: 'Level 3 plan',
    number: 'SYM01-ARC-Z1-03-DR-A-0003',
    breadcrumbs: [{ id: f.id, name: 'Drawings' }],
  })
  await expectProblem(await patch(writer.c, `/api/documents/${doc.id}`, { archived: true }), 403)
  expect((await body<DocumentDetail>(await patch(admin.c, `/api/documents/${doc.id}`, { archived: true }))).state).toBe('Archived')
  await expectProblem(await patch(writer.c, `/api/documents/${doc.id}`, { title: 'x' }), 409, 'KR_ARCHIVED')
  expect((await body<DocumentDetail>(await patch(admin.c, `/api/documents/${doc.id}`, { archived: false }))).state).toBe('WIP')
})

test('permissions: the nearest entry decides, a person’s entry beats their role’s, administrators always manage, below view is 404 everywhere', async () => {
  const { admin, writer, reader } = await organisation(t)
  const p = await project(admin.c)
  const open = await folder(admin.c, p.id, 'Open')
  const restricted = await folder(admin.c, p.id, 'Commercial')
  const inner = await folder(admin.c, p.id, 'Published tender', restricted.id)
  const hiddenDoc = await document(admin.c, p.id, 'SYM01-GCO-ZZ-XX-CO-Z-0001', restricted.id)
  const innerDoc = await document(admin.c, p.id, 'SYM01-GCO-ZZ-XX-CO-Z-0002', inner.id)
  const openDoc = await document(admin.c, p.id, 'SYM01-ARC-ZZ-XX-DR-A-0001', open.id)

  // Read-write members see nothing of Commercial except the published tender folder; the reader may upload into Open.
  await setPermissions(admin.c, `/api/folders/${restricted.id}/permissions`, [{ subjectKind: 'role', subject: 'read-write', level: 'none' }])
  await setPermissions(admin.c, `/api/folders/${inner.id}/permissions`, [{ subjectKind: 'role', subject: 'read-write', level: 'view' }])
  await setPermissions(admin.c, `/api/folders/${open.id}/permissions`, [{ subjectKind: 'user', subject: reader.user.id, level: 'upload' }])

  for (const path of [`/api/documents/${hiddenDoc.id}`, `/api/documents/${hiddenDoc.id}/permissions`, `/api/folders/${restricted.id}/permissions`])
    await expectProblem(await writer.c.get(path), 404)
  await expectProblem(
    await put(writer.c, `/api/documents/${hiddenDoc.id}/metadata`, {
      values: {},
    }),
    404,
  )
  await expectProblem(await patch(writer.c, `/api/folders/${restricted.id}`, { name: 'Mine' }), 404)
  expect((await body<DocumentDetail>(await writer.c.get(`/api/documents/${innerDoc.id}`))).access).toBe('view')
  await expectProblem(
    await put(writer.c, `/api/documents/${innerDoc.id}/metadata`, {
      values: {},
    }),
    403,
  )
  // The way to what they may view is shown by name only: Commercial is restricted, with nothing of its own counted.
  const writerTree = await tree(writer.c, p.id, '?depth=all')
  expect(writerTree.folders.map((f) => [f.name, f.restricted ?? false, f.documentCount, f.folderCount])).toEqual([
    ['Commercial', true, 0, 1],
    ['Open', false, 1, 0],
  ])
  expect(writerTree.folders[0]?.children?.map((f) => [f.name, f.restricted ?? false, f.documentCount])).toEqual([['Published tender', false, 1]])
  expect((await body<Folder>(await writer.c.get(`/api/folders/${restricted.id}`))).restricted).toBe(true)
  await expectProblem(await writer.c.get(`/api/folders/${restricted.id}/permissions`), 404)
  await expectProblem(await writer.c.post(`/api/projects/${p.id}/folders`, { name: 'Inside', parentId: restricted.id }), 404)

  // A person's own entry beats the role's at the same place; a deeper entry beats a higher one.
  await setPermissions(admin.c, `/api/folders/${restricted.id}/permissions`, [
    { subjectKind: 'role', subject: 'read-write', level: 'none' },
    { subjectKind: 'user', subject: writer.user.id, level: 'edit' },
  ])
  expect((await body<DocumentDetail>(await writer.c.get(`/api/documents/${hiddenDoc.id}`))).access).toBe('edit')
  expect((await body<DocumentDetail>(await writer.c.get(`/api/documents/${innerDoc.id}`))).access).toBe('view')

  // The reader (view by default) may upload into Open but not elsewhere.
  await document(reader.c, p.id, 'SYM01-ARC-ZZ-XX-DR-A-0002', open.id)
  await expectProblem(
    await reader.c.post(`/api/projects/${p.id}/documents`, {
      number: 'SYM01-ARC-ZZ-XX-DR-A-0003',
      title: 'x',
    }),
    403,
    'KR_FORBIDDEN',
  )
  expect((await body<DocumentDetail>(await reader.c.get(`/api/documents/${openDoc.id}`))).access).toBe('upload')

  // Administrators always manage, whatever the entries say; an entry for the admin role is refused.
  const refused = await expectProblem(
    await put(admin.c, `/api/projects/${p.id}/permissions`, {
      entries: [{ subjectKind: 'role', subject: 'admin', level: 'none' }],
    }),
    400,
  )
  expect(refused.errors?.['entries.0.subject']).toEqual(['Administrators always manage documents: no entry is needed.'])
  const other = await signedMember(t, 'admin')
  const stranger = await expectProblem(
    await put(admin.c, `/api/projects/${p.id}/permissions`, {
      entries: [{ subjectKind: 'user', subject: other.user.id, level: 'view' }],
    }),
    400,
  )
  expect(stranger.errors?.['entries.0.subject']).toEqual(['Choose an active member of this organisation.'])
  await setPermissions(admin.c, `/api/projects/${p.id}/permissions`, [{ subjectKind: 'role', subject: 'read-write', level: 'none' }])
  expect((await body<DocumentDetail>(await admin.c.get(`/api/documents/${hiddenDoc.id}`))).access).toBe('manage')
  // The project's top is closed to them, but their own entry on Commercial still leads there.
  const closed = await tree(writer.c, p.id, '?depth=all')
  expect(closed.folders.map((f) => [f.name, f.restricted ?? false])).toEqual([['Commercial', false]])
  await expectProblem(await writer.c.get(`/api/documents/${openDoc.id}`), 404)

  // What applies from above is shown where nothing is set.
  const shown = await body<Permissions>(await admin.c.get(`/api/folders/${inner.id}/permissions`))
  expect(shown.entries).toEqual([
    {
      subjectKind: 'role',
      subject: 'read-write',
      subjectName: 'Read & Write',
      level: 'view',
    },
  ])
  expect(shown.inherited).toEqual([
    {
      subjectKind: 'role',
      subject: 'read-write',
      subjectName: 'Read & Write',
      level: 'none',
    },
    {
      subjectKind: 'role',
      subject: 'read-only',
      subjectName: 'Read Only',
      level: 'view',
    },
    {
      subjectKind: 'user',
      subject: writer.user.id,
      subjectName: writer.user.displayName,
      level: 'edit',
    },
  ])

  // With nothing inside open to them, the project is not there at all.
  await setPermissions(admin.c, `/api/folders/${restricted.id}/permissions`, [{ subjectKind: 'role', subject: 'read-write', level: 'none' }])
  await setPermissions(admin.c, `/api/folders/${inner.id}/permissions`, [])
  await expectProblem(await writer.c.get(`/api/projects/${p.id}/documents/tree`), 404)
  await expectProblem(await writer.c.get(`/api/documents/search?projectId=${p.id}`), 404)
})

test('a read-only member reads but cannot create; a manager who lowers their own level is still answered', async () => {
  const { admin, reader, writer } = await organisation(t)
  const p = await project(admin.c)
  await expectProblem(await reader.c.post(`/api/projects/${p.id}/folders`, { name: 'Mine' }), 403)
  await expectProblem(
    await reader.c.post(`/api/projects/${p.id}/documents`, {
      number: 'SYM01-ARC-Z1-03-DR-A-0001',
      title: 'x',
    }),
    403,
  )
  const f = await folder(admin.c, p.id, 'Handover')
  await setPermissions(admin.c, `/api/folders/${f.id}/permissions`, [{ subjectKind: 'user', subject: writer.user.id, level: 'manage' }])
  const lowered = await setPermissions(writer.c, `/api/folders/${f.id}/permissions`, [{ subjectKind: 'user', subject: writer.user.id, level: 'view' }])
  expect(lowered.entries[0]?.level).toBe('view')
  await expectProblem(await writer.c.get(`/api/folders/${f.id}/permissions`), 403)
})

test('another organisation’s ids answer 404 in every document call, and nothing of it changes', async () => {
  const mine = await organisation(t)
  const theirs = await organisation(t)
  const p = await project(theirs.admin.c)
  const f = await folder(theirs.admin.c, p.id, 'Drawings')
  const d = await document(theirs.admin.c, p.id, 'SYM01-ARC-Z1-03-DR-A-0001', f.id)
  const calls: Array<[string, string, unknown?]> = [
    ['GET', `/api/projects/${p.id}/documents/tree`],
    ['GET', `/api/projects/${p.id}/documents/tree?folderId=${f.id}`],
    ['POST', `/api/projects/${p.id}/folders`, { name: 'x' }],
    ['GET', `/api/folders/${f.id}`],
    ['PATCH', `/api/folders/${f.id}`, { name: 'x' }],
    ['POST', `/api/projects/${p.id}/documents`, { number: 'SYM01-ARC-Z1-03-DR-A-0002', title: 'x' }],
    ['POST', `/api/projects/${p.id}/documents/validate`, { number: 'SYM01-ARC-Z1-03-DR-A-0002' }],
    ['GET', `/api/documents/${d.id}`],
    ['PATCH', `/api/documents/${d.id}`, { title: 'x' }],
    ['PUT', `/api/documents/${d.id}/metadata`, { values: {} }],
    ['GET', `/api/projects/${p.id}/naming-standard`],
    ['PUT', `/api/projects/${p.id}/naming-standard`, { fields: [] }],
    ['GET', `/api/projects/${p.id}/metadata-fields`],
    ['PUT', `/api/projects/${p.id}/metadata-fields`, { fields: [] }],
    ['GET', `/api/projects/${p.id}/permissions`],
    ['PUT', `/api/projects/${p.id}/permissions`, { entries: [] }],
    ['GET', `/api/folders/${f.id}/permissions`],
    ['PUT', `/api/folders/${f.id}/permissions`, { entries: [] }],
    ['GET', `/api/documents/${d.id}/permissions`],
    ['PUT', `/api/documents/${d.id}/permissions`, { entries: [] }],
  ]
  for (const member of [mine.admin, mine.writer, mine.reader] satisfies Signed[]) {
    for (const [method, path, json] of calls) {
      const response = await member.c.request(path, {
        method,
        ...(json !== undefined && { json }),
      })
      // The naming standard PUT with no fields fails validation before the project is looked up: 400 is no leak either.
      if (path.endsWith('/naming-standard') && method === 'PUT') expect([400, 404]).toContain(response.status)
      else await expectProblem(response, 404)
    }
  }
  const still = await body<DocumentDetail>(await theirs.admin.c.get(`/api/documents/${d.id}`))
  expect(still.title).toBe('Drawing SYM01-ARC-Z1-03-DR-A-0001')
  expect(still.revision).toBe(d.revision)
})

test('unknown and malformed ids are 404, never a database error', async () => {
  const { admin } = await organisation(t)
  for (const path of ['/api/documents/not-a-uuid', '/api/folders/%20', '/api/projects/123/documents/tree', '/api/documents/00000000-0000-4000-8000-000000000000'])
    await expectProblem(await admin.c.get(path), 404)
})

test('document changes are in the change log for realtime, and the sync feed skips them but moves its cursor past them', async () => {
  const { admin, tenant } = await organisation(t)
  const p = await project(admin.c)
  const first = await body<{ cursor: { value: string }; hasMore: boolean }>(await admin.c.get('/api/sync/changes'))
  expect(first.hasMore).toBe(false)
  const doc = await document(admin.c, p.id, 'SYM01-ARC-Z1-03-DR-A-0009')
  const log = await changeLogOf(t, tenant.id)
  expect(log.at(-1)).toMatchObject({
    entity: 'Document',
    entityId: doc.id,
    changeType: 'Created',
  })
  const next = await body<{ changes: unknown[]; cursor: { value: string } }>(await admin.c.get(`/api/sync/changes?cursor=${encodeURIComponent(first.cursor.value)}`))
  expect(next.changes).toEqual([])
  expect(next.cursor.value).not.toBe(first.cursor.value)
})

test('nothing new is filed in an archived project, and what is there stays readable', async () => {
  const { admin } = await organisation(t)
  const p = await project(admin.c)
  const doc = await document(admin.c, p.id, 'SYM01-ARC-Z1-03-DR-A-0001')
  await body(await admin.c.post(`/api/projects/${p.id}/archive`))
  await expectProblem(await admin.c.post(`/api/projects/${p.id}/folders`, { name: 'Late' }), 409, 'KR_ARCHIVED')
  await expectProblem(await admin.c.post(`/api/projects/${p.id}/documents`, { number: 'SYM01-ARC-Z1-03-DR-A-0002', title: 'Late' }), 409, 'KR_ARCHIVED')
  expect((await body<DocumentDetail>(await admin.c.get(`/api/documents/${doc.id}`))).number).toBe('SYM01-ARC-Z1-03-DR-A-0001')
})

test('the demo seed files drawings, a specification and a report under the Riverside standard, one drawing superseded and one item pinned', async () => {
  expect(await seedIfEmpty(t.db, { store: blobStoreFor(t.config) })).toBe(true)
  const [demo] = await t.db.select({ id: tenants.id }).from(tenants).where(eq(tenants.slug, DEMO.tenant.slug))
  const [admin] = await t.db.select({ id: users.id }).from(users).where(eq(users.email, DEMO.admin.email))
  const c = await signedInClient(t, { user: { id: admin?.id ?? '' }, tenant: { id: demo?.id ?? '' } })
  const found = await body<SearchPage>(await c.get('/api/documents/search?q=RSAA'))
  expect(found.items.map((d) => [d.number, d.currentRevision?.code, d.state])).toEqual([
    ['RSAA-ARC-XX-XX-SP-A-0001', 'P01', 'Shared'],
    ['RSAA-ARC-ZZ-00-DR-A-0001', 'P02', 'Shared'],
    ['RSAA-ARC-ZZ-03-DR-A-0003', 'P01', 'Shared'],
    ['RSAA-GCO-XX-XX-RP-W-0001', 'P01', 'Shared'],
    ['RSAA-STR-ZZ-XX-DR-S-0100', 'C01', 'Published'],
  ])
  const ground = await body<DocumentDetail>(await c.get(`/api/documents/${found.items[1]?.id}`))
  expect(ground.revisions.map((r) => [r.code, r.superseded, r.sheet !== null])).toEqual([
    ['P02', false, true],
    ['P01', true, true],
  ])
  const spec = await body<DocumentDetail>(await c.get(`/api/documents/${found.items[0]?.id}`))
  expect(spec.revisions[0]?.sheet).toBeNull()
  const pins = await body<{ items: unknown[] }>(await c.get(`/api/documents/${found.items[2]?.id}/pins`))
  expect(pins.items).toHaveLength(1)
})

import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { memberships } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import type { Page, Project } from '~/lib/reporting/types'
import { addMembership, client, createMember, expectProblem, signedInClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, changeLogOf, countRows, newProject, organisation, patch, signedMember, walk } from '#tests/helpers/reporting-a'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-03-02T09:30:00.000Z' })
})

afterAll(async () => {
  await t.close()
})

test('POST /api/projects answers 201 with the project, which GET and the list then show', async () => {
  const { writer } = await organisation(t)

  const response = await writer.c.post('/api/projects', { title: '  Riverside Block A  ', code: 'RSA-A' })

  const project = await body<Project>(response, 201)
  expect(project).toEqual({
    id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    title: 'Riverside Block A',
    code: 'RSA-A',
    status: 'active',
    archivedAtUtc: null,
    createdBy: { id: writer.user.id, displayName: writer.user.displayName },
    createdAtUtc: t.now().toISOString(),
    updatedAtUtc: t.now().toISOString(),
    revision: 1,
  } satisfies Project)
  expect(await body<Project>(await writer.c.get(`/api/projects/${project.id}`))).toEqual(project)
  expect(await body<Page<Project>>(await writer.c.get('/api/projects'))).toEqual({ items: [project], nextCursor: null })
})

test('an empty, blank or absent title is stored as null (shown as "Untitled Project"); so is an empty code', async () => {
  const { writer } = await organisation(t)

  const empty = await newProject(writer.c, { title: '', code: '' })
  const blank = await newProject(writer.c, { title: '   ' })
  const absent = await body<Project>(await writer.c.post('/api/projects', {}), 201)
  const explicitNull = await newProject(writer.c, { title: null, code: null })

  for (const project of [empty, blank, absent, explicitNull]) expect(project).toMatchObject({ title: null, code: null })
})

test('POST /api/projects refuses bad input with 400 naming each field, and stores nothing', async () => {
  const { tenant, writer } = await organisation(t)
  const cases: Array<[unknown, string[]]> = [
    [{ title: 'x'.repeat(201) }, ['title']],
    [{ title: 42 }, ['title']],
    [{ title: ['a'] }, ['title']],
    [{ code: 'C'.repeat(41) }, ['code']],
    [{ code: false }, ['code']],
    [{ title: 'y'.repeat(300), code: 7 }, ['title', 'code']],
  ]

  for (const [json, fields] of cases) {
    const problem = await expectProblem(await writer.c.post('/api/projects', json), 400, 'KR_VALIDATION')
    expect(Object.keys(problem.errors ?? {}).sort(), JSON.stringify(json)).toEqual([...fields].sort())
  }
  const notJson = await writer.c.request('/api/projects', { method: 'POST', body: '{"title":', headers: { 'content-type': 'application/json' } })
  await expectProblem(notJson, 400, 'KR_VALIDATION')
  const notAnObject = await expectProblem(await writer.c.post('/api/projects', ['title']), 400, 'KR_VALIDATION')
  expect(notAnObject.errors).toBeDefined()

  expect(await countRows(t, tenant.id, 'projects')).toBe(0)
  expect(await countRows(t, tenant.id, 'change_log')).toBe(0)
})

test('a title of exactly 200 characters is accepted', async () => {
  const { writer } = await organisation(t)

  const project = await newProject(writer.c, { title: 't'.repeat(200) })

  expect(project.title).toHaveLength(200)
})

test('creating a project: read-only members are refused with 403 KR_FORBIDDEN; read-write members and admins may', async () => {
  const { tenant, admin, writer, reader } = await organisation(t)

  await expectProblem(await reader.c.post('/api/projects', { title: 'Nope' }), 403, 'KR_FORBIDDEN')
  expect(await countRows(t, tenant.id, 'projects')).toBe(0)
  await newProject(writer.c)
  await newProject(admin.c)
  expect(await countRows(t, tenant.id, 'projects')).toBe(2)
})

test('every role reads the project list and a project', async () => {
  const { admin, writer, reader } = await organisation(t)
  const project = await newProject(admin.c)

  for (const member of [admin, writer, reader]) {
    expect(await body<Project>(await member.c.get(`/api/projects/${project.id}`))).toEqual(project)
    expect((await body<Page<Project>>(await member.c.get('/api/projects'))).items).toEqual([project])
  }
})

test('PATCH /api/projects/{id} renames: absent fields stay, null or "" clears, and each change bumps the revision', async () => {
  const { writer } = await organisation(t)
  const project = await newProject(writer.c, { title: 'Old name', code: 'OLD' })
  t.now.advance(60_000)

  const renamed = await body<Project>(await patch(writer.c, `/api/projects/${project.id}`, { title: 'New name' }))
  const cleared = await body<Project>(await patch(writer.c, `/api/projects/${project.id}`, { title: '', code: null }))

  expect(renamed).toEqual({ ...project, title: 'New name', updatedAtUtc: t.now().toISOString(), revision: project.revision + 1 })
  expect(cleared).toMatchObject({ title: null, code: null, revision: project.revision + 2 })
  expect(await body<Project>(await writer.c.get(`/api/projects/${project.id}`))).toEqual(cleared)
})

test('a PATCH that changes nothing answers the project as it is and records no change', async () => {
  const { tenant, writer } = await organisation(t)
  const project = await newProject(writer.c, { title: 'Same', code: 'S' })

  const same = await body<Project>(await patch(writer.c, `/api/projects/${project.id}`, { title: 'Same' }))
  const empty = await body<Project>(await patch(writer.c, `/api/projects/${project.id}`, {}))

  expect(same).toEqual(project)
  expect(empty).toEqual(project)
  expect(await changeLogOf(t, tenant.id)).toHaveLength(1)
})

test('PATCH /api/projects/{id} refuses bad input with 400 naming the field, and changes nothing', async () => {
  const { writer } = await organisation(t)
  const project = await newProject(writer.c, { title: 'Keep me', code: 'K' })

  const long = await expectProblem(await patch(writer.c, `/api/projects/${project.id}`, { title: 'x'.repeat(201) }), 400, 'KR_VALIDATION')
  const wrongType = await expectProblem(await patch(writer.c, `/api/projects/${project.id}`, { code: 12 }), 400, 'KR_VALIDATION')

  expect(Object.keys(long.errors ?? {})).toEqual(['title'])
  expect(Object.keys(wrongType.errors ?? {})).toEqual(['code'])
  expect(await body<Project>(await writer.c.get(`/api/projects/${project.id}`))).toEqual(project)
})

test('renaming a project: read-only members are refused; any read-write member (not only the creator) and admins may', async () => {
  const { admin, writer, reader } = await organisation(t)
  const project = await newProject(admin.c, { title: 'By the admin' })

  await expectProblem(await patch(reader.c, `/api/projects/${project.id}`, { title: 'Reader' }), 403, 'KR_FORBIDDEN')
  expect((await body<Project>(await writer.c.get(`/api/projects/${project.id}`))).title).toBe('By the admin')
  expect((await body<Project>(await patch(writer.c, `/api/projects/${project.id}`, { title: 'Writer' }))).title).toBe('Writer')
  expect((await body<Project>(await patch(admin.c, `/api/projects/${project.id}`, { title: 'Admin' }))).title).toBe('Admin')
})

test('archive and unarchive: only admins; read-write creators and read-only members get 403 and nothing changes', async () => {
  const { admin, writer, reader } = await organisation(t)
  const project = await newProject(writer.c)

  for (const member of [writer, reader]) {
    await expectProblem(await member.c.post(`/api/projects/${project.id}/archive`), 403, 'KR_FORBIDDEN')
  }
  expect((await body<Project>(await writer.c.get(`/api/projects/${project.id}`))).status).toBe('active')

  t.now.advance(5_000)
  const archived = await body<Project>(await admin.c.post(`/api/projects/${project.id}/archive`))
  expect(archived).toEqual({ ...project, status: 'archived', archivedAtUtc: t.now().toISOString(), updatedAtUtc: t.now().toISOString(), revision: project.revision + 1 })

  for (const member of [writer, reader]) {
    await expectProblem(await member.c.post(`/api/projects/${project.id}/unarchive`), 403, 'KR_FORBIDDEN')
  }
  const restored = await body<Project>(await admin.c.post(`/api/projects/${project.id}/unarchive`))
  expect(restored).toMatchObject({ status: 'active', archivedAtUtc: null, revision: project.revision + 2 })
})

test('archiving an archived project (or unarchiving an active one) answers it unchanged, without a new revision', async () => {
  const { tenant, admin } = await organisation(t)
  const project = await newProject(admin.c)

  const unchanged = await body<Project>(await admin.c.post(`/api/projects/${project.id}/unarchive`))
  const archived = await body<Project>(await admin.c.post(`/api/projects/${project.id}/archive`))
  const again = await body<Project>(await admin.c.post(`/api/projects/${project.id}/archive`))

  expect(unchanged).toEqual(project)
  expect(again).toEqual(archived)
  expect(await changeLogOf(t, tenant.id)).toHaveLength(2)
})

test('the list shows active projects by default; status=archived and status=all filter', async () => {
  const { admin } = await organisation(t)
  const active = await newProject(admin.c)
  t.now.advance(1_000)
  const archived = await newProject(admin.c)
  await admin.c.post(`/api/projects/${archived.id}/archive`)

  const ids = async (query: string) => (await body<Page<Project>>(await admin.c.get(`/api/projects${query}`))).items.map((p) => p.id)

  expect(await ids('')).toEqual([active.id])
  expect(await ids('?status=active')).toEqual([active.id])
  expect(await ids('?status=archived')).toEqual([archived.id])
  expect(await ids('?status=all')).toEqual([archived.id, active.id])
})

test('create, rename, archive and unarchive append to the change log with consecutive revisions; the row keeps the latest', async () => {
  const { tenant, admin } = await organisation(t)

  const project = await newProject(admin.c, { title: 'Logged' })
  await patch(admin.c, `/api/projects/${project.id}`, { title: 'Logged again' })
  await admin.c.post(`/api/projects/${project.id}/archive`)
  await admin.c.post(`/api/projects/${project.id}/unarchive`)
  const other = await newProject(admin.c)

  expect(await changeLogOf(t, tenant.id)).toEqual([
    { revision: 1, entity: 'Project', entityId: project.id, changeType: 'Created' },
    { revision: 2, entity: 'Project', entityId: project.id, changeType: 'Updated' },
    { revision: 3, entity: 'Project', entityId: project.id, changeType: 'Updated' },
    { revision: 4, entity: 'Project', entityId: project.id, changeType: 'Updated' },
    { revision: 5, entity: 'Project', entityId: other.id, changeType: 'Created' },
  ])
  expect((await body<Project>(await admin.c.get(`/api/projects/${project.id}`))).revision).toBe(4)
  expect(other.revision).toBe(5)
})

test('a refused change leaves no hole in the change log', async () => {
  const { tenant, admin, reader } = await organisation(t)
  const first = await newProject(admin.c)

  await expectProblem(await reader.c.post('/api/projects', {}), 403, 'KR_FORBIDDEN')
  await expectProblem(await admin.c.post('/api/projects', { title: 'x'.repeat(201) }), 400)
  const second = await newProject(admin.c)

  expect([first.revision, second.revision]).toEqual([1, 2])
  expect((await changeLogOf(t, tenant.id)).map((c) => c.revision)).toEqual([1, 2])
})

test('paging walks every project once, newest first, including rows created in the same millisecond', async () => {
  const { admin } = await organisation(t)
  const created: Project[] = []
  for (let i = 0; i < 7; i++) {
    created.push(await newProject(admin.c, { title: `P${i}` }))
    if (i % 3 === 2) t.now.advance(1_000) // groups of three share a createdAt: the id breaks the tie
  }
  const expected = (await body<Page<Project>>(await admin.c.get('/api/projects?limit=100'))).items.map((p) => p.id)

  const { ids, pages } = await walk<Project>(admin.c, '/api/projects', 3)

  expect(new Set(expected)).toEqual(new Set(created.map((p) => p.id)))
  expect(ids).toEqual(expected)
  expect(pages).toBe(3)
  const times = (await body<Page<Project>>(await admin.c.get('/api/projects?limit=100'))).items.map((p) => p.createdAtUtc)
  expect([...times].sort().reverse()).toEqual(times)
})

test('a page exactly full answers a null nextCursor; the default limit is 25', async () => {
  const { admin } = await organisation(t)
  for (let i = 0; i < 26; i++) await newProject(admin.c)

  const firstPage = await body<Page<Project>>(await admin.c.get('/api/projects'))
  const exact = await body<Page<Project>>(await admin.c.get('/api/projects?limit=26'))

  expect(firstPage.items).toHaveLength(25)
  expect(firstPage.nextCursor).not.toBeNull()
  expect(exact.items).toHaveLength(26)
  expect(exact.nextCursor).toBeNull()
})

test('GET /api/projects refuses an invalid cursor, limit or status with 400 naming the parameter', async () => {
  const { admin } = await organisation(t)
  const cases: Array<[string, string]> = [
    ['?after=not-a-cursor', 'after'],
    [`?after=${Buffer.from('{"t":"yesterday","id":"x"}').toString('base64url')}`, 'after'],
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?limit=2.5', 'limit'],
    ['?limit=ten', 'limit'],
    ['?status=deleted', 'status'],
  ]

  for (const [query, field] of cases) {
    const problem = await expectProblem(await admin.c.get(`/api/projects${query}`), 400, 'KR_VALIDATION')
    expect(Object.keys(problem.errors ?? {}), query).toEqual([field])
  }
})

test("another tenant's project answers 404 to every call that takes its id, and is left untouched", async () => {
  const owner = await organisation(t)
  const project = await newProject(owner.admin.c, { title: 'Secret site', code: 'SEC' })
  const stranger = await signedMember(t, 'admin')

  await expectProblem(await stranger.c.get(`/api/projects/${project.id}`), 404, 'KR_NOT_FOUND')
  await expectProblem(await patch(stranger.c, `/api/projects/${project.id}`, { title: 'Mine now' }), 404, 'KR_NOT_FOUND')
  await expectProblem(await stranger.c.post(`/api/projects/${project.id}/archive`), 404, 'KR_NOT_FOUND')
  await expectProblem(await stranger.c.post(`/api/projects/${project.id}/unarchive`), 404, 'KR_NOT_FOUND')
  await expectProblem(await stranger.c.get(`/api/projects/${project.id}/packages`), 404, 'KR_NOT_FOUND')
  const list = await body<Page<Project>>(await stranger.c.get('/api/projects?status=all'))

  expect(list.items).toEqual([])
  expect(await body<Project>(await owner.admin.c.get(`/api/projects/${project.id}`))).toEqual(project)
  expect(await changeLogOf(t, stranger.tenant.id)).toEqual([])
})

test('a member of both organisations sees each one only through the session of that organisation', async () => {
  const first = await organisation(t)
  const second = await organisation(t)
  const project = await newProject(first.admin.c)
  await addMembership(t.db, second.tenant.id, first.writer.user.id, { roleKey: 'admin', isDefault: false })
  const inSecond = await signedInClient(t, { user: first.writer.user, tenant: second.tenant })

  await expectProblem(await inSecond.get(`/api/projects/${project.id}`), 404, 'KR_NOT_FOUND')
  await expectProblem(await inSecond.post(`/api/projects/${project.id}/archive`), 404, 'KR_NOT_FOUND')
})

test('ids that are not uuids answer 404', async () => {
  const { admin } = await organisation(t)

  await expectProblem(await admin.c.get('/api/projects/not-a-uuid'), 404, 'KR_NOT_FOUND')
  await expectProblem(await patch(admin.c, '/api/projects/123', { title: 'x' }), 404, 'KR_NOT_FOUND')
  await expectProblem(await admin.c.post("/api/projects/'%20or%201=1/archive"), 404, 'KR_NOT_FOUND')
})

test('without a session every project call answers 401; a suspended membership answers 403', async () => {
  const anonymous = client(t)
  await expectProblem(await anonymous.get('/api/projects'), 401, 'KR_UNAUTHENTICATED')
  await expectProblem(await anonymous.post('/api/projects', { title: 'x' }), 401, 'KR_UNAUTHENTICATED')

  const member = await createMember(t.db, { roleKey: 'admin' })
  const suspended = await createMember(t.db, { tenant: member.tenant, roleKey: 'admin' })
  const c = await signedInClient(t, suspended)
  await withTenant(t.db, member.tenant.id, (tx) => tx.update(memberships).set({ status: 'suspended' }).where(eq(memberships.userId, suspended.user.id)))
  await expectProblem(await c.get('/api/projects'), 403)
})

test('POST /api/projects with an Idempotency-Key creates one project however often it is retried', async () => {
  const { tenant, writer } = await organisation(t)
  const headers = { 'Idempotency-Key': `create-${tenant.id}` }

  const first = await body<Project>(await writer.c.request('/api/projects', { method: 'POST', json: { title: 'Once' }, headers }), 201)
  const retry = await body<Project>(await writer.c.request('/api/projects', { method: 'POST', json: { title: 'Once' }, headers }), 201)

  expect(retry).toEqual(first)
  expect(await countRows(t, tenant.id, 'projects')).toBe(1)
})

import { afterAll, beforeAll, expect, test } from 'vitest'
import type { SavedView } from '~/lib/reporting/types'
import { client, expectProblem, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, countRows, organisation, put, signedMember } from '#tests/helpers/reporting-a'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-03-02T09:30:00.000Z' })
})

afterAll(async () => {
  await t.close()
})

async function views(c: TestClient, scope?: string): Promise<SavedView[]> {
  return (await body<{ items: SavedView[] }>(await c.get(`/api/views${scope ? `?scope=${scope}` : ''}`))).items
}

async function newView(c: TestClient, json: { name: string; scope: 'personal' | 'shared'; query?: string }): Promise<SavedView> {
  return body<SavedView>(await c.post('/api/views', { query: 'status=open', ...json }), 201)
}

test('POST /api/views answers 201 with a personal view that only its owner lists', async () => {
  const { writer, admin } = await organisation(t)

  const response = await writer.c.post('/api/views', { name: '  My open items ', scope: 'personal', query: 'status=open&group=package&layout=cards' })

  const view = await body<SavedView>(response, 201)
  expect(view).toEqual({
    id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    name: 'My open items',
    scope: 'personal',
    query: 'status=open&group=package&layout=cards',
    owner: { id: writer.user.id, displayName: writer.user.displayName },
    createdAtUtc: t.now().toISOString(),
    updatedAtUtc: t.now().toISOString(),
  } satisfies SavedView)
  expect(await views(writer.c, 'personal')).toEqual([view])
  expect(await views(writer.c, 'shared')).toEqual([])
  expect(await views(admin.c, 'personal')).toEqual([])
  expect(await views(admin.c, 'shared')).toEqual([])
})

test('a shared view is listed under scope=shared for every member; without a scope the list holds mine and the shared ones', async () => {
  const { writer, admin, reader } = await organisation(t)
  const shared = await newView(writer.c, { name: 'Overdue by package', scope: 'shared', query: 'overdue=true&group=package' })
  const mine = await newView(reader.c, { name: 'Assigned to me', scope: 'personal' })
  await newView(admin.c, { name: 'Admin only', scope: 'personal' })

  for (const member of [writer, admin, reader]) expect(await views(member.c, 'shared')).toEqual([shared])
  expect(await views(reader.c)).toEqual([mine, shared])
})

test('views are listed by name, ignoring case', async () => {
  const { writer } = await organisation(t)
  for (const name of ['beta', 'Alpha', 'gamma', 'Delta']) await newView(writer.c, { name, scope: 'personal' })

  expect((await views(writer.c, 'personal')).map((v) => v.name)).toEqual(['Alpha', 'beta', 'Delta', 'gamma'])
})

test('creating views: everyone may keep personal views; read-only members may not share (403); read-write and admins may', async () => {
  const { tenant, admin, writer, reader } = await organisation(t)

  await newView(reader.c, { name: 'Mine', scope: 'personal' })
  await expectProblem(await reader.c.post('/api/views', { name: 'Ours', scope: 'shared', query: '' }), 403, 'KR_FORBIDDEN')
  await newView(writer.c, { name: 'Writer shared', scope: 'shared' })
  await newView(admin.c, { name: 'Admin shared', scope: 'shared' })

  expect((await views(reader.c, 'shared')).map((v) => v.name)).toEqual(['Admin shared', 'Writer shared'])
  expect(await countRows(t, tenant.id, 'saved_views')).toBe(3)
})

test('POST /api/views refuses bad input with 400 naming each field, and stores nothing', async () => {
  const { tenant, writer } = await organisation(t)
  const cases: Array<[unknown, string[]]> = [
    [{ scope: 'personal', query: '' }, ['name']],
    [{ name: '', scope: 'personal', query: '' }, ['name']],
    [{ name: '   ', scope: 'personal', query: '' }, ['name']],
    [{ name: 'n'.repeat(81), scope: 'personal', query: '' }, ['name']],
    [{ name: 5, scope: 'personal', query: '' }, ['name']],
    [{ name: 'No scope', query: '' }, ['scope']],
    [{ name: 'Bad scope', scope: 'team', query: '' }, ['scope']],
    [{ name: 'No query', scope: 'personal' }, ['query']],
    [{ name: 'Query object', scope: 'personal', query: { status: 'open' } }, ['query']],
    [{ name: 'Too long', scope: 'personal', query: `q=${'x'.repeat(1999)}` }, ['query']],
    [{ name: 'Spaces', scope: 'personal', query: 'status=open items' }, ['query']],
    [{ name: 'Fragment', scope: 'personal', query: 'status=open#top' }, ['query']],
    [{ name: 'Bad escape', scope: 'personal', query: 'title=%E0%A4%A' }, ['query']],
    [{ name: 'Newline', scope: 'personal', query: 'a=1\nb=2' }, ['query']],
    [{ name: '', scope: 'everyone', query: 7 }, ['name', 'query', 'scope']],
  ]

  for (const [json, fields] of cases) {
    const problem = await expectProblem(await writer.c.post('/api/views', json), 400, 'KR_VALIDATION')
    expect(Object.keys(problem.errors ?? {}).sort(), JSON.stringify(json)).toEqual(fields)
  }
  expect(await countRows(t, tenant.id, 'saved_views')).toBe(0)
})

test('a query of exactly 2000 characters is kept; a leading "?" is dropped; an empty query is the default screen', async () => {
  const { writer } = await organisation(t)
  const longest = `q=${'x'.repeat(1998)}`

  const full = await newView(writer.c, { name: 'Longest', scope: 'personal', query: longest })
  const pasted = await newView(writer.c, { name: 'Pasted', scope: 'personal', query: '?status=open&title=M%C3%BCller+%26+Sons' })
  const plain = await newView(writer.c, { name: 'Default', scope: 'personal', query: '' })
  const eighty = await newView(writer.c, { name: 'n'.repeat(80), scope: 'personal' })

  expect(full.query).toBe(longest)
  expect(pasted.query).toBe('status=open&title=M%C3%BCller+%26+Sons')
  expect(plain.query).toBe('')
  expect(eighty.name).toHaveLength(80)
})

test('GET /api/views refuses an unknown scope with 400', async () => {
  const { writer } = await organisation(t)

  const problem = await expectProblem(await writer.c.get('/api/views?scope=everyone'), 400, 'KR_VALIDATION')

  expect(Object.keys(problem.errors ?? {})).toEqual(['scope'])
})

test('PUT /api/views/{id} replaces name, scope and query of my own view', async () => {
  const { writer } = await organisation(t)
  const view = await newView(writer.c, { name: 'Draft', scope: 'personal', query: 'status=open' })
  t.now.advance(60_000)

  const changed = await body<SavedView>(await put(writer.c, `/api/views/${view.id}`, { name: 'Final', scope: 'shared', query: 'status=closed' }))

  expect(changed).toEqual({ ...view, name: 'Final', scope: 'shared', query: 'status=closed', updatedAtUtc: t.now().toISOString() })
  expect(await views(writer.c, 'shared')).toEqual([changed])
  expect(await views(writer.c, 'personal')).toEqual([])
})

test('PUT /api/views/{id} refuses bad input with 400 naming each field, and changes nothing', async () => {
  const { writer } = await organisation(t)
  const view = await newView(writer.c, { name: 'Keep', scope: 'personal' })

  const partial = await expectProblem(await put(writer.c, `/api/views/${view.id}`, { name: 'Only a name' }), 400, 'KR_VALIDATION')
  const long = await expectProblem(await put(writer.c, `/api/views/${view.id}`, { name: 'x'.repeat(81), scope: 'personal', query: '' }), 400, 'KR_VALIDATION')

  expect(Object.keys(partial.errors ?? {}).sort()).toEqual(['query', 'scope'])
  expect(Object.keys(long.errors ?? {})).toEqual(['name'])
  expect(await views(writer.c, 'personal')).toEqual([view])
})

test("another member's personal view does not exist for me, admin included: PUT and DELETE answer 404 and it stays", async () => {
  const { writer, admin } = await organisation(t)
  const colleague = await signedMember(t, 'read-write', writer.tenant)
  const view = await newView(writer.c, { name: 'Private', scope: 'personal' })

  for (const member of [colleague, admin]) {
    await expectProblem(await put(member.c, `/api/views/${view.id}`, { name: 'Mine', scope: 'personal', query: '' }), 404, 'KR_NOT_FOUND')
    await expectProblem(await member.c.delete(`/api/views/${view.id}`), 404, 'KR_NOT_FOUND')
  }
  expect(await views(writer.c, 'personal')).toEqual([view])
})

test('a shared view is changed by its owner or an admin; another read-write member gets 403', async () => {
  const { writer, admin } = await organisation(t)
  const colleague = await signedMember(t, 'read-write', writer.tenant)
  const view = await newView(writer.c, { name: 'Team view', scope: 'shared' })

  await expectProblem(await put(colleague.c, `/api/views/${view.id}`, { name: 'Hijacked', scope: 'shared', query: '' }), 403, 'KR_FORBIDDEN')
  expect((await body<SavedView>(await put(writer.c, `/api/views/${view.id}`, { name: 'By owner', scope: 'shared', query: 'a=1' }))).name).toBe('By owner')
  const byAdmin = await body<SavedView>(await put(admin.c, `/api/views/${view.id}`, { name: 'By admin', scope: 'shared', query: 'a=2' }))

  expect(byAdmin).toMatchObject({ name: 'By admin', query: 'a=2', owner: { id: writer.user.id } })
})

test('only its owner may make a shared view personal; read-only members may not share their personal view', async () => {
  const { writer, admin, reader } = await organisation(t)
  const shared = await newView(writer.c, { name: 'Shared', scope: 'shared' })
  const readerView = await newView(reader.c, { name: 'Reader view', scope: 'personal' })

  await expectProblem(await put(admin.c, `/api/views/${shared.id}`, { name: 'Shared', scope: 'personal', query: '' }), 403, 'KR_FORBIDDEN')
  await expectProblem(await put(reader.c, `/api/views/${readerView.id}`, { name: 'Reader view', scope: 'shared', query: '' }), 403, 'KR_FORBIDDEN')
  expect(await body<SavedView>(await put(reader.c, `/api/views/${readerView.id}`, { name: 'Renamed', scope: 'personal', query: 'x=1' }))).toMatchObject({ name: 'Renamed' })
  expect(await body<SavedView>(await put(writer.c, `/api/views/${shared.id}`, { name: 'Shared', scope: 'personal', query: '' }))).toMatchObject({ scope: 'personal' })
  expect(await views(admin.c, 'shared')).toEqual([])
})

test('read-only members cannot change or delete a shared view of someone else', async () => {
  const { writer, reader } = await organisation(t)
  const view = await newView(writer.c, { name: 'Team', scope: 'shared' })

  await expectProblem(await put(reader.c, `/api/views/${view.id}`, { name: 'X', scope: 'shared', query: '' }), 403, 'KR_FORBIDDEN')
  await expectProblem(await reader.c.delete(`/api/views/${view.id}`), 403, 'KR_FORBIDDEN')
  expect(await views(writer.c, 'shared')).toEqual([view])
})

test('DELETE /api/views/{id}: my personal view, a shared view as owner or admin; another read-write member gets 403; gone is 404', async () => {
  const { writer, admin, reader } = await organisation(t)
  const colleague = await signedMember(t, 'read-write', writer.tenant)
  const personal = await newView(reader.c, { name: 'Mine', scope: 'personal' })
  const sharedByWriter = await newView(writer.c, { name: 'One', scope: 'shared' })
  const sharedByColleague = await newView(colleague.c, { name: 'Two', scope: 'shared' })

  expect((await reader.c.delete(`/api/views/${personal.id}`)).status).toBe(204)
  await expectProblem(await colleague.c.delete(`/api/views/${sharedByWriter.id}`), 403, 'KR_FORBIDDEN')
  expect((await writer.c.delete(`/api/views/${sharedByWriter.id}`)).status).toBe(204)
  expect((await admin.c.delete(`/api/views/${sharedByColleague.id}`)).status).toBe(204)

  await expectProblem(await reader.c.delete(`/api/views/${personal.id}`), 404, 'KR_NOT_FOUND')
  expect(await views(reader.c)).toEqual([])
})

test("another tenant's views: never listed, and PUT and DELETE answer 404 leaving them as they were", async () => {
  const owner = await organisation(t)
  const shared = await newView(owner.writer.c, { name: 'Their shared', scope: 'shared' })
  const personal = await newView(owner.writer.c, { name: 'Their personal', scope: 'personal' })
  const stranger = await signedMember(t, 'admin')

  expect(await views(stranger.c)).toEqual([])
  for (const view of [shared, personal]) {
    await expectProblem(await put(stranger.c, `/api/views/${view.id}`, { name: 'Taken', scope: 'shared', query: '' }), 404, 'KR_NOT_FOUND')
    await expectProblem(await stranger.c.delete(`/api/views/${view.id}`), 404, 'KR_NOT_FOUND')
  }
  await expectProblem(await stranger.c.delete('/api/views/not-a-uuid'), 404, 'KR_NOT_FOUND')
  expect(await views(owner.writer.c)).toEqual([personal, shared])
})

test('without a session view calls answer 401', async () => {
  const anonymous = client(t)

  await expectProblem(await anonymous.get('/api/views?scope=shared'), 401, 'KR_UNAUTHENTICATED')
  await expectProblem(await anonymous.post('/api/views', { name: 'x', scope: 'personal', query: '' }), 401, 'KR_UNAUTHENTICATED')
})

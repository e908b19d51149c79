import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Page, Report } from '~/lib/reporting/types'
import { client, expectProblem } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, changeLogOf, countRows, insertItem, newProject, newReport, organisation, patch, signedMember, walk } from '#tests/helpers/reporting-a'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-03-02T09:30:00.000Z' })
})

afterAll(async () => {
  await t.close()
})

test('POST /api/reports answers 201 with the report, its project title and zero item counts; GET and the list show it', async () => {
  const { admin, writer } = await organisation(t)
  const project = await newProject(admin.c, { title: 'Riverside' })

  const report = await body<Report>(await writer.c.post('/api/reports', { projectId: project.id, title: '  Level 3 walk ' }), 201)

  expect(report).toEqual({
    id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    projectId: project.id,
    projectTitle: 'Riverside',
    title: 'Level 3 walk',
    status: 'active',
    archivedAtUtc: null,
    createdBy: { id: writer.user.id, displayName: writer.user.displayName },
    createdAtUtc: t.now().toISOString(),
    updatedAtUtc: t.now().toISOString(),
    revision: project.revision + 1,
    itemCounts: { open: 0, closeRequested: 0, closed: 0 },
  } satisfies Report)
  expect(await body<Report>(await writer.c.get(`/api/reports/${report.id}`))).toEqual(report)
  expect(await body<Page<Report>>(await writer.c.get(`/api/reports?projectId=${project.id}`))).toEqual({ items: [report], nextCursor: null })
})

test('an empty, blank or absent report title is stored as null; an untitled project shows a null projectTitle', async () => {
  const { writer } = await organisation(t)
  const project = await newProject(writer.c, { title: null })

  const reports = [
    await newReport(writer.c, project.id, ''),
    await newReport(writer.c, project.id, '  '),
    await newReport(writer.c, project.id, null),
    await body<Report>(await writer.c.post('/api/reports', { projectId: project.id }), 201),
  ]

  for (const report of reports) expect(report).toMatchObject({ title: null, projectTitle: null })
})

test('POST /api/reports refuses bad input with 400 naming each field, and stores nothing', async () => {
  const { tenant, writer } = await organisation(t)
  const project = await newProject(writer.c)
  const foreign = await newProject((await signedMember(t, 'admin')).c)
  const cases: Array<[unknown, string[]]> = [
    [{}, ['projectId']],
    [{ title: 'No project' }, ['projectId']],
    [{ projectId: 'not-a-uuid' }, ['projectId']],
    [{ projectId: 17 }, ['projectId']],
    [{ projectId: '00000000-0000-4000-8000-000000000000' }, ['projectId']],
    [{ projectId: foreign.id }, ['projectId']],
    [{ projectId: project.id, title: 'x'.repeat(201) }, ['title']],
    [{ projectId: project.id, title: 3 }, ['title']],
    [{ projectId: null, title: 'x'.repeat(201) }, ['projectId', 'title']],
  ]

  for (const [json, fields] of cases) {
    const problem = await expectProblem(await writer.c.post('/api/reports', json), 400, 'KR_VALIDATION')
    expect(Object.keys(problem.errors ?? {}).sort(), JSON.stringify(json)).toEqual(fields)
  }

  expect(await countRows(t, tenant.id, 'reports')).toBe(0)
  expect((await changeLogOf(t, tenant.id)).map((c) => c.entity)).toEqual(['Project'])
})

test('an archived project takes no new report: 409 KR_ARCHIVED, nothing stored; unarchived, it takes them again', async () => {
  const { tenant, admin, writer } = await organisation(t)
  const project = await newProject(admin.c)
  await admin.c.post(`/api/projects/${project.id}/archive`)

  await expectProblem(await writer.c.post('/api/reports', { projectId: project.id, title: 'Late' }), 409, 'KR_ARCHIVED')
  expect(await countRows(t, tenant.id, 'reports')).toBe(0)

  await admin.c.post(`/api/projects/${project.id}/unarchive`)
  await newReport(writer.c, project.id)
  expect(await countRows(t, tenant.id, 'reports')).toBe(1)
})

test('creating a report: read-only members get 403 KR_FORBIDDEN; read-write members and admins may', async () => {
  const { tenant, admin, writer, reader } = await organisation(t)
  const project = await newProject(admin.c)

  await expectProblem(await reader.c.post('/api/reports', { projectId: project.id }), 403, 'KR_FORBIDDEN')
  expect(await countRows(t, tenant.id, 'reports')).toBe(0)
  await newReport(writer.c, project.id)
  await newReport(admin.c, project.id)
  expect(await countRows(t, tenant.id, 'reports')).toBe(2)
})

test('every role reads reports', async () => {
  const { admin, writer, reader } = await organisation(t)
  const report = await newReport(admin.c, (await newProject(admin.c)).id)

  for (const member of [admin, writer, reader]) {
    expect(await body<Report>(await member.c.get(`/api/reports/${report.id}`))).toEqual(report)
    expect((await body<Page<Report>>(await member.c.get('/api/reports'))).items).toEqual([report])
  }
})

test('PATCH /api/reports/{id} renames (null or "" clears); read-only is refused; any read-write member and admins may', async () => {
  const { admin, writer, reader } = await organisation(t)
  const report = await newReport(admin.c, (await newProject(admin.c)).id, 'First')
  t.now.advance(30_000)

  await expectProblem(await patch(reader.c, `/api/reports/${report.id}`, { title: 'Reader' }), 403, 'KR_FORBIDDEN')
  const byWriter = await body<Report>(await patch(writer.c, `/api/reports/${report.id}`, { title: 'Second' }))
  const byAdmin = await body<Report>(await patch(admin.c, `/api/reports/${report.id}`, { title: '' }))

  expect(byWriter).toEqual({ ...report, title: 'Second', updatedAtUtc: t.now().toISOString(), revision: report.revision + 1 })
  expect(byAdmin).toMatchObject({ title: null, revision: report.revision + 2 })
})

test('PATCH /api/reports/{id} refuses a bad title with 400; an empty patch changes nothing', async () => {
  const { tenant, writer } = await organisation(t)
  const report = await newReport(writer.c, (await newProject(writer.c)).id, 'Keep')

  const problem = await expectProblem(await patch(writer.c, `/api/reports/${report.id}`, { title: 'x'.repeat(201) }), 400, 'KR_VALIDATION')
  const wrongType = await expectProblem(await patch(writer.c, `/api/reports/${report.id}`, { title: { text: 'x' } }), 400, 'KR_VALIDATION')
  const empty = await body<Report>(await patch(writer.c, `/api/reports/${report.id}`, {}))

  expect(Object.keys(problem.errors ?? {})).toEqual(['title'])
  expect(Object.keys(wrongType.errors ?? {})).toEqual(['title'])
  expect(empty).toEqual(report)
  expect(await changeLogOf(t, tenant.id)).toHaveLength(2)
})

test('archive and unarchive a report: its creator (read-write) or an admin; other read-write members and read-only are refused', async () => {
  const { admin, writer, reader } = await organisation(t)
  const otherWriter = await signedMember(t, 'read-write', admin.tenant)
  const project = await newProject(admin.c)
  const mine = await newReport(writer.c, project.id)
  const adminsReport = await newReport(admin.c, project.id)

  for (const member of [otherWriter, reader]) {
    await expectProblem(await member.c.post(`/api/reports/${mine.id}/archive`), 403, 'KR_FORBIDDEN')
  }
  await expectProblem(await writer.c.post(`/api/reports/${adminsReport.id}/archive`), 403, 'KR_FORBIDDEN')
  expect((await body<Report>(await writer.c.get(`/api/reports/${mine.id}`))).status).toBe('active')

  t.now.advance(1_000)
  const archived = await body<Report>(await writer.c.post(`/api/reports/${mine.id}/archive`))
  expect(archived).toEqual({ ...mine, status: 'archived', archivedAtUtc: t.now().toISOString(), updatedAtUtc: t.now().toISOString(), revision: expect.any(Number) })
  for (const member of [otherWriter, reader]) {
    await expectProblem(await member.c.post(`/api/reports/${mine.id}/unarchive`), 403, 'KR_FORBIDDEN')
  }
  expect(await body<Report>(await admin.c.post(`/api/reports/${mine.id}/unarchive`))).toMatchObject({ status: 'active', archivedAtUtc: null })
  expect(await body<Report>(await admin.c.post(`/api/reports/${adminsReport.id}/archive`))).toMatchObject({ status: 'archived' })
  expect(await body<Report>(await writer.c.post(`/api/reports/${mine.id}/archive`))).toMatchObject({ status: 'archived' })
  expect(await body<Report>(await writer.c.post(`/api/reports/${mine.id}/unarchive`))).toMatchObject({ status: 'active' })
})

test('archiving an archived report answers it unchanged, without a new revision', async () => {
  const { tenant, admin } = await organisation(t)
  const report = await newReport(admin.c, (await newProject(admin.c)).id)

  const first = await body<Report>(await admin.c.post(`/api/reports/${report.id}/archive`))
  const second = await body<Report>(await admin.c.post(`/api/reports/${report.id}/archive`))
  const notArchived = await body<Report>(await admin.c.post(`/api/reports/${(await newReport(admin.c, report.projectId)).id}/unarchive`))

  expect(second).toEqual(first)
  expect(notArchived.status).toBe('active')
  expect((await changeLogOf(t, tenant.id)).map((c) => c.changeType)).toEqual(['Created', 'Created', 'Updated', 'Created'])
})

test('create, rename and archive append Report changes with consecutive revisions; the row keeps the latest', async () => {
  const { tenant, admin } = await organisation(t)
  const project = await newProject(admin.c)

  const report = await newReport(admin.c, project.id, 'One')
  await patch(admin.c, `/api/reports/${report.id}`, { title: 'Two' })
  await admin.c.post(`/api/reports/${report.id}/archive`)
  await admin.c.post(`/api/reports/${report.id}/unarchive`)

  expect(await changeLogOf(t, tenant.id)).toEqual([
    { revision: 1, entity: 'Project', entityId: project.id, changeType: 'Created' },
    { revision: 2, entity: 'Report', entityId: report.id, changeType: 'Created' },
    { revision: 3, entity: 'Report', entityId: report.id, changeType: 'Updated' },
    { revision: 4, entity: 'Report', entityId: report.id, changeType: 'Updated' },
    { revision: 5, entity: 'Report', entityId: report.id, changeType: 'Updated' },
  ])
  expect((await body<Report>(await admin.c.get(`/api/reports/${report.id}`))).revision).toBe(5)
})

test('itemCounts count each report’s items per status, leaving deleted items out', async () => {
  const { tenant, admin } = await organisation(t)
  const project = await newProject(admin.c)
  const busy = await newReport(admin.c, project.id, 'Busy')
  t.now.advance(1_000)
  const quiet = await newReport(admin.c, project.id, 'Quiet')
  t.now.advance(1_000)
  const empty = await newReport(admin.c, project.id, 'Empty')
  const actor = { tenantId: tenant.id, userId: admin.user.id }
  for (const status of ['open', 'open', 'close_requested', 'closed', 'closed', 'closed'] as const) await insertItem(t, actor, busy, { status })
  await insertItem(t, actor, busy, { status: 'open', deleted: true })
  await insertItem(t, actor, quiet, { status: 'close_requested' })

  const page = await body<Page<Report>>(await admin.c.get(`/api/reports?projectId=${project.id}`))

  expect(page.items.map((r) => [r.title, r.itemCounts])).toEqual([
    ['Empty', { open: 0, closeRequested: 0, closed: 0 }],
    ['Quiet', { open: 0, closeRequested: 1, closed: 0 }],
    ['Busy', { open: 2, closeRequested: 1, closed: 3 }],
  ])
  expect((await body<Report>(await admin.c.get(`/api/reports/${busy.id}`))).itemCounts).toEqual({ open: 2, closeRequested: 1, closed: 3 })
  expect((await body<Report>(await admin.c.get(`/api/reports/${empty.id}`))).itemCounts).toEqual({ open: 0, closeRequested: 0, closed: 0 })
})

test('the list filters by projectId and status (active by default, archived, all)', async () => {
  const { admin } = await organisation(t)
  const first = await newProject(admin.c)
  const second = await newProject(admin.c)
  const a = await newReport(admin.c, first.id)
  t.now.advance(1_000)
  const b = await newReport(admin.c, first.id)
  t.now.advance(1_000)
  const c = await newReport(admin.c, second.id)
  await admin.c.post(`/api/reports/${b.id}/archive`)

  const ids = async (query: string) => (await body<Page<Report>>(await admin.c.get(`/api/reports${query}`))).items.map((r) => r.id)

  expect(await ids('')).toEqual([c.id, a.id])
  expect(await ids(`?projectId=${first.id}`)).toEqual([a.id])
  expect(await ids(`?projectId=${first.id}&status=archived`)).toEqual([b.id])
  expect(await ids(`?projectId=${first.id}&status=all`)).toEqual([b.id, a.id])
  expect(await ids(`?projectId=${second.id}&status=all`)).toEqual([c.id])
})

test('paging walks every report once, newest first, with ties on createdAt broken by id', async () => {
  const { admin } = await organisation(t)
  const project = await newProject(admin.c)
  const created: string[] = []
  for (let i = 0; i < 8; i++) {
    created.push((await newReport(admin.c, project.id)).id)
    if (i % 2 === 1) t.now.advance(500)
  }
  const all = (await body<Page<Report>>(await admin.c.get(`/api/reports?projectId=${project.id}&limit=100`))).items.map((r) => r.id)

  const { ids, pages } = await walk<Report>(admin.c, `/api/reports?projectId=${project.id}`, 3)

  expect(new Set(all)).toEqual(new Set(created))
  expect(ids).toEqual(all)
  expect(pages).toBe(3)
})

test('GET /api/reports refuses an invalid projectId, cursor, limit or status with 400 naming the parameter', async () => {
  const { admin } = await organisation(t)
  const cases: Array<[string, string]> = [
    ['?projectId=nope', 'projectId'],
    ['?after=%%%', 'after'],
    ['?after=eyJ0IjoiMjAyNi0wMS0wMVQwMDowMDowMC4wMDBaIn0', 'after'],
    ['?limit=-1', 'limit'],
    ['?limit=1000', 'limit'],
    ['?status=open', 'status'],
  ]

  for (const [query, field] of cases) {
    const problem = await expectProblem(await admin.c.get(`/api/reports${query}`), 400, 'KR_VALIDATION')
    expect(Object.keys(problem.errors ?? {}), query).toEqual([field])
  }
})

test("another tenant's report answers 404 to every call that takes its id; its project matches nothing in the list", async () => {
  const owner = await organisation(t)
  const project = await newProject(owner.admin.c)
  const report = await newReport(owner.admin.c, project.id, 'Private')
  const stranger = await signedMember(t, 'admin')

  await expectProblem(await stranger.c.get(`/api/reports/${report.id}`), 404, 'KR_NOT_FOUND')
  await expectProblem(await patch(stranger.c, `/api/reports/${report.id}`, { title: 'Taken' }), 404, 'KR_NOT_FOUND')
  await expectProblem(await stranger.c.post(`/api/reports/${report.id}/archive`), 404, 'KR_NOT_FOUND')
  await expectProblem(await stranger.c.post(`/api/reports/${report.id}/unarchive`), 404, 'KR_NOT_FOUND')
  await expectProblem(await stranger.c.get('/api/reports/not-a-uuid'), 404, 'KR_NOT_FOUND')

  expect(await body<Page<Report>>(await stranger.c.get(`/api/reports?projectId=${project.id}&status=all`))).toEqual({ items: [], nextCursor: null })
  expect((await body<Page<Report>>(await stranger.c.get('/api/reports?status=all'))).items).toEqual([])
  expect(await body<Report>(await owner.admin.c.get(`/api/reports/${report.id}`))).toEqual(report)
})

test('without a session report calls answer 401', async () => {
  const anonymous = client(t)

  await expectProblem(await anonymous.get('/api/reports'), 401, 'KR_UNAUTHENTICATED')
  await expectProblem(await anonymous.get('/api/reports/00000000-0000-4000-8000-000000000000'), 401, 'KR_UNAUTHENTICATED')
})

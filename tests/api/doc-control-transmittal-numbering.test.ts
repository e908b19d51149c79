import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Transmittal } from '~/lib/doc-control/types'
import type { TransmittalNumbering } from '~/lib/doc-control/transmittal-numbering'
import { auditOf, expectProblem, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { documentProject } from '#tests/helpers/documents'
import { body, newProject, organisation, put } from '#tests/helpers/reporting-a'

/** docs/doc-control.md "Transmittal numbers": each project's format, the naming code it is filled with, and who may change it. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-20T09:00:00.000Z' })
})

afterAll(async () => {
  await t.close()
})

const path = (projectId: string) => `/api/projects/${projectId}/transmittal-numbering`

async function draftNumber(c: TestClient, projectId: string): Promise<string> {
  return (await body<Transmittal>(await c.post(`/api/projects/${projectId}/transmittals`, {}), 201)).number
}

test('by default a transmittal takes the project’s naming code, TRN and four digits; a project without a code leaves the code out', async () => {
  const { admin, writer } = await organisation(t)
  const p = await documentProject(admin.c, 'RSA-A')
  expect(await body<TransmittalNumbering>(await writer.c.get(path(p.id)))).toMatchObject({
    projectId: p.id,
    format: '{project}-TRN-{seq:4}',
    defaultFormat: '{project}-TRN-{seq:4}',
    namingCode: 'RSAA',
    nextNumber: 'RSAA-TRN-0001',
    canChange: false,
    updatedAtUtc: null,
  })
  expect(await draftNumber(writer.c, p.id)).toBe('RSAA-TRN-0001')
  expect(await draftNumber(writer.c, p.id)).toBe('RSAA-TRN-0002')
  expect((await body<TransmittalNumbering>(await admin.c.get(path(p.id)))).nextNumber).toBe('RSAA-TRN-0003')

  const uncoded = await newProject(admin.c, { title: 'No code' })
  expect(await draftNumber(writer.c, uncoded.id)).toBe('TRN-0001')
})

test('the naming standard’s Project code fills {project} when the project has one', async () => {
  const { admin, writer } = await organisation(t)
  const p = await documentProject(admin.c, 'RSA-A')
  const standard = await body<{ fields: Array<{ key: string; codes?: Array<{ code: string; description: string }> }> }>(await admin.c.get(`/api/projects/${p.id}/naming-standard`))
  const fields = standard.fields.map((f) => (f.key === 'project' ? { ...f, codes: [{ code: 'RSX', description: 'Riverside' }] } : f))
  await body(await put(admin.c, `/api/projects/${p.id}/naming-standard`, { fields }))
  expect(await draftNumber(writer.c, p.id)).toBe('RSX-TRN-0001')
})

test('a manager sets the format; numbers already given stay, the next follow it, and the change is audited', async () => {
  const { admin, writer, tenant } = await organisation(t)
  const p = await documentProject(admin.c, 'SYM01')
  const first = await draftNumber(writer.c, p.id)
  expect(first).toBe('SYM01-TRN-0001')

  const changed = await body<TransmittalNumbering>(await put(admin.c, path(p.id), { format: ' {project}/T/{year}/{seq:6} ' }))
  expect(changed).toMatchObject({ format: '{project}/T/{year}/{seq:6}', nextNumber: 'SYM01/T/2026/000002', canChange: true, updatedByName: expect.any(String) })
  expect(changed.updatedAtUtc).toBe('2026-11-20T09:00:00.000Z')
  expect(await draftNumber(writer.c, p.id)).toBe('SYM01/T/2026/000002')
  const list = await body<{ items: Transmittal[] }>(await writer.c.get(`/api/projects/${p.id}/transmittals`))
  expect(list.items.map((i) => i.number).sort()).toEqual(['SYM01-TRN-0001', 'SYM01/T/2026/000002'])

  const audit = await auditOf(t.db, { action: 'doc-control.numbering.changed', tenantId: tenant.id })
  expect(audit).toHaveLength(1)
  expect(audit[0]?.data).toEqual({ from: '{project}-TRN-{seq:4}', to: '{project}/T/{year}/{seq:6}' })

  // A writer given manage on the project is a document controller here and may change it too.
  await body(await put(admin.c, `/api/projects/${p.id}/permissions`, { entries: [{ subjectKind: 'user', subject: writer.user.id, level: 'manage' }] }))
  expect((await body<TransmittalNumbering>(await put(writer.c, path(p.id), { format: 'DOC-{seq}' }))).nextNumber).toBe('DOC-3')
})

test('a format with problems is refused with every problem on the format field, and nothing changes', async () => {
  const { admin } = await organisation(t)
  const p = await documentProject(admin.c, 'SYM01')
  const cases: Array<[unknown, string]> = [
    ['{project}-TRN', 'The format needs the sequence'],
    ['{project}-{seq}-{seq:3}', 'The format takes the sequence once.'],
    ['{project}-{sequence}', '{sequence} is not a placeholder'],
    ['{project}-{seq:0}', '{seq:N} pads the sequence to N digits'],
    ['{project} TRN {seq}', 'cannot be part of a number'],
    ['', 'Give the format'],
    [`${'X'.repeat(60)}{seq}`, 'at most 60 characters'],
    [12, 'Give the format'],
  ]
  for (const [format, words] of cases) {
    const problem = await expectProblem(await put(admin.c, path(p.id), { format }), 400)
    expect(problem.errors?.format?.join(' '), String(format)).toContain(words)
  }
  expect((await body<TransmittalNumbering>(await admin.c.get(path(p.id)))).format).toBe('{project}-TRN-{seq:4}')
})

test('walls: another organisation’s project is 404; writers and readers without manage are 403; an archived project is 409', async () => {
  const { admin, writer, reader } = await organisation(t)
  const p = await documentProject(admin.c, 'SYM01')
  const stranger = await organisation(t)
  await expectProblem(await stranger.admin.c.get(path(p.id)), 404)
  await expectProblem(await put(stranger.admin.c, path(p.id), { format: 'X-{seq}' }), 404)
  await expectProblem(await admin.c.get(path('00000000-0000-4000-8000-000000000000')), 404)
  await expectProblem(await admin.c.get(path('not-an-id')), 404)
  await expectProblem(await put(writer.c, path(p.id), { format: 'X-{seq}' }), 403)
  // Even with manage on the project, a read-only member changes nothing.
  await body(await put(admin.c, `/api/projects/${p.id}/permissions`, { entries: [{ subjectKind: 'user', subject: reader.user.id, level: 'manage' }] }))
  await expectProblem(await put(reader.c, path(p.id), { format: 'X-{seq}' }), 403)
  // Someone the project is closed to does not learn it exists.
  await body(await put(admin.c, `/api/projects/${p.id}/permissions`, { entries: [{ subjectKind: 'user', subject: writer.user.id, level: 'none' }] }))
  await expectProblem(await writer.c.get(path(p.id)), 404)
  expect((await body<TransmittalNumbering>(await admin.c.get(path(p.id)))).format).toBe('{project}-TRN-{seq:4}')

  await body(await admin.c.post(`/api/projects/${p.id}/archive`))
  await expectProblem(await put(admin.c, path(p.id), { format: 'X-{seq}' }), 409, 'KR_ARCHIVED')
})

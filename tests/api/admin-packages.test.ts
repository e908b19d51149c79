import { afterAll, beforeAll, expect, test } from 'vitest'
import { packageEntityId } from '#server/domain/admin/packages'
import type { AdminPackage, ProjectPackageSetting } from '~/lib/admin/packages'
import type { Item, PackageInfo } from '~/lib/reporting/types'
import { auditOf, expectProblem } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, changeLogOf, insertPackages, newProject, newReport, organisation, patch, put } from '#tests/helpers/reporting-a'

/** docs/admin/packages-and-uploads.md "Packages": the organisation's packages and a project's own settings. Through HTTP. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-16T09:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

const orgPath = (id: string) => `/api/admin/organisations/${id}/packages`
type List = { items: AdminPackage[] }

test('an admin lists, adds, renames, reorders and deactivates packages with the whole list; each change is audited and announced', async () => {
  const { tenant, admin } = await organisation(t)
  await insertPackages(t, tenant.id, [
    { key: 'electrical', name: 'Electrical', sortOrder: 1 },
    { key: 'glazing', name: 'Glazing', sortOrder: 2 },
  ])
  const first = await body<List>(await admin.c.get(orgPath(tenant.id)))
  expect(first.items).toEqual([
    expect.objectContaining({ key: 'electrical', name: 'Electrical', active: true, sortOrder: 1, itemCount: 0, projectOverrideCount: 0 }),
    expect.objectContaining({ key: 'glazing', name: 'Glazing', active: true, sortOrder: 2, itemCount: 0 }),
  ])

  const before = await changeLogOf(t, tenant.id)
  const saved = await body<List>(
    await put(admin.c, orgPath(tenant.id), {
      items: [
        { key: 'glazing', name: 'Glazing and façades', active: false, sortOrder: 1 },
        { key: 'electrical', name: 'Electrical', active: true, sortOrder: 2 },
        { key: 'mech-2', name: 'Mechanical', active: true, sortOrder: 3 },
      ],
    }),
  )
  expect(saved.items.map((p) => [p.key, p.name, p.active, p.sortOrder])).toEqual([
    ['glazing', 'Glazing and façades', false, 1],
    ['electrical', 'Electrical', true, 2],
    ['mech-2', 'Mechanical', true, 3],
  ])
  expect(await body<List>(await admin.c.get(orgPath(tenant.id)))).toEqual(saved)
  // Members read the same list (GET /api/packages), inactive ones marked.
  expect((await body<{ items: PackageInfo[] }>(await admin.c.get('/api/packages'))).items).toContainEqual({ key: 'glazing', name: 'Glazing and façades', active: false })

  const changes = (await changeLogOf(t, tenant.id)).slice(before.length)
  expect(changes.map((c) => [c.entity, c.entityId, c.changeType])).toEqual(
    expect.arrayContaining([
      ['Package', packageEntityId(tenant.id, 'glazing'), 'Updated'],
      ['Package', packageEntityId(tenant.id, 'electrical'), 'Updated'],
      ['Package', packageEntityId(tenant.id, 'mech-2'), 'Created'],
    ]),
  )
  expect(changes).toHaveLength(3)
  const audit = await auditOf(t.db, { action: 'admin.package.changed', tenantId: tenant.id })
  expect(audit.map((a) => a.data)).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        key: 'glazing',
        change: 'updated',
        changes: { name: { from: 'Glazing', to: 'Glazing and façades' }, active: { from: true, to: false }, sortOrder: { from: 2, to: 1 } },
      }),
      expect.objectContaining({ key: 'mech-2', change: 'added', name: 'Mechanical' }),
    ]),
  )
  expect(audit.every((a) => a.actorUserId === admin.user.id && a.ip !== null && a.correlationId !== null)).toBe(true)

  // The same list again changes nothing.
  await body<List>(await put(admin.c, orgPath(tenant.id), { items: saved.items.map(({ key, name, active, sortOrder }) => ({ key, name, active, sortOrder })) }))
  expect(await changeLogOf(t, tenant.id)).toHaveLength(before.length + 3)

  // PATCH: one package at a time, for the screen's forms.
  const on = await body<AdminPackage>(await patch(admin.c, `${orgPath(tenant.id)}/glazing`, { active: true }))
  expect(on).toMatchObject({ key: 'glazing', active: true, name: 'Glazing and façades' })
  const renamed = await body<AdminPackage>(await patch(admin.c, `${orgPath(tenant.id)}/mech-2`, { name: 'Mechanical services' }))
  expect(renamed.name).toBe('Mechanical services')
  await expectProblem(await patch(admin.c, `${orgPath(tenant.id)}/nope`, { active: true }), 404, 'KR_NOT_FOUND')
  const clash = await expectProblem(await patch(admin.c, `${orgPath(tenant.id)}/mech-2`, { name: 'electrical' }), 422, 'KR_VALIDATION')
  expect(clash.errors?.name).toBeDefined()
  await expectProblem(await patch(admin.c, `${orgPath(tenant.id)}/mech-2`, {}), 400, 'KR_VALIDATION')
})

test('bad lists are refused row by row, and a package items use is never removed: deactivate it instead', async () => {
  const { tenant, admin, writer } = await organisation(t)
  await insertPackages(t, tenant.id, [
    { key: 'used', name: 'Used', sortOrder: 1 },
    { key: 'unused', name: 'Unused', sortOrder: 2 },
  ])
  const project = await newProject(admin.c)
  const report = await newReport(admin.c, project.id)
  await body<Item>(await writer.c.post(`/api/reports/${report.id}/items`, { title: 'Cable tray', packageKey: 'used' }), 201)

  const shape = await expectProblem(
    await put(admin.c, orgPath(tenant.id), {
      items: [
        { key: 'Bad Key', name: 'X', active: true, sortOrder: 0 },
        { key: 'ok', name: '', active: true, sortOrder: -1 },
      ],
    }),
    400,
    'KR_VALIDATION',
  )
  expect(Object.keys(shape.errors ?? {})).toEqual(expect.arrayContaining(['items.0.key', 'items.1.name', 'items.1.sortOrder']))

  const twice = await expectProblem(
    await put(admin.c, orgPath(tenant.id), {
      items: [
        { key: 'used', name: 'Used', active: true, sortOrder: 1 },
        { key: 'used', name: 'Used again', active: true, sortOrder: 2 },
        { key: 'other', name: 'USED', active: true, sortOrder: 3 },
      ],
    }),
    422,
    'KR_VALIDATION',
  )
  expect(twice.errors).toMatchObject({ 'items.1.key': [expect.any(String)], 'items.2.name': [expect.any(String)] })

  const removing = await expectProblem(await put(admin.c, orgPath(tenant.id), { items: [{ key: 'unused', name: 'Unused', active: true, sortOrder: 2 }] }), 422, 'KR_VALIDATION')
  expect(removing.errors?.items?.[0]).toContain('deactivate it instead')
  expect((await body<List>(await admin.c.get(orgPath(tenant.id)))).items.map((p) => p.key)).toEqual(['used', 'unused'])

  // An unused package may go; the used one stays, deactivated, still counted on its item.
  const after = await body<List>(await put(admin.c, orgPath(tenant.id), { items: [{ key: 'used', name: 'Used', active: false, sortOrder: 1 }] }))
  expect(after.items).toEqual([expect.objectContaining({ key: 'used', active: false, itemCount: 1 })])
  expect((await auditOf(t.db, { action: 'admin.package.changed', tenantId: tenant.id })).map((a) => a.data)).toContainEqual(
    expect.objectContaining({ key: 'unused', change: 'removed' }),
  )
})

test('items keep a deactivated package; new items and edits cannot choose it; a project can switch it back on', async () => {
  const { tenant, admin, writer } = await organisation(t)
  await insertPackages(t, tenant.id, [
    { key: 'glazing', name: 'Glazing', sortOrder: 1 },
    { key: 'roofing', name: 'Roofing', sortOrder: 2 },
  ])
  const project = await newProject(admin.c)
  const report = await newReport(admin.c, project.id)
  const item = await body<Item>(await writer.c.post(`/api/reports/${report.id}/items`, { title: 'Cracked pane', packageKey: 'glazing' }), 201)
  const other = await body<Item>(await writer.c.post(`/api/reports/${report.id}/items`, { title: 'Loose tile', packageKey: 'roofing' }), 201)

  await body<AdminPackage>(await patch(admin.c, `${orgPath(tenant.id)}/glazing`, { active: false }))

  // Reading and editing the item keeps its package.
  expect((await body<Item>(await writer.c.get(`/api/items/${item.id}`))).packageKey).toBe('glazing')
  expect((await body<Item>(await patch(writer.c, `/api/items/${item.id}`, { title: 'Cracked pane, level 2', packageKey: 'glazing' }))).packageKey).toBe('glazing')
  // A new item, or another item moved onto it, is refused beside the field.
  const refused = await expectProblem(await writer.c.post(`/api/reports/${report.id}/items`, { title: 'New crack', packageKey: 'glazing' }), 400, 'KR_VALIDATION')
  expect(refused.errors?.packageKey).toBeDefined()
  const moved = await expectProblem(await patch(writer.c, `/api/items/${other.id}`, { packageKey: 'glazing' }), 400, 'KR_VALIDATION')
  expect(moved.errors?.packageKey).toBeDefined()
  expect((await body<{ items: PackageInfo[] }>(await writer.c.get(`/api/projects/${project.id}/packages`))).items).toContainEqual({
    key: 'glazing',
    name: 'Glazing',
    active: false,
  })

  // The project switches it on for itself, and roofing off: new items follow the project.
  const settings = await body<{ items: ProjectPackageSetting[] }>(
    await put(admin.c, `/api/projects/${project.id}/packages`, {
      items: [
        { packageKey: 'glazing', active: true },
        { packageKey: 'roofing', active: false },
      ],
    }),
  )
  expect(settings.items).toEqual([
    { key: 'glazing', name: 'Glazing', organisationActive: false, override: true, active: true },
    { key: 'roofing', name: 'Roofing', organisationActive: true, override: false, active: false },
  ])
  expect(await body<{ items: ProjectPackageSetting[] }>(await admin.c.get(`/api/admin/projects/${project.id}/packages`))).toEqual(settings)
  await body<Item>(await writer.c.post(`/api/reports/${report.id}/items`, { title: 'New crack', packageKey: 'glazing' }), 201)
  await expectProblem(await writer.c.post(`/api/reports/${report.id}/items`, { title: 'Gutter', packageKey: 'roofing' }), 400, 'KR_VALIDATION')
  expect((await body<List>(await admin.c.get(orgPath(tenant.id)))).items.map((p) => [p.key, p.itemCount, p.projectOverrideCount])).toEqual([
    ['glazing', 2, 1],
    ['roofing', 1, 1],
  ])

  // Back to inheriting: null, or leaving a package out.
  const inherit = await body<{ items: ProjectPackageSetting[] }>(await put(admin.c, `/api/projects/${project.id}/packages`, { items: [{ packageKey: 'glazing', active: null }] }))
  expect(inherit.items.map((p) => [p.key, p.override, p.active])).toEqual([
    ['glazing', null, false],
    ['roofing', null, true],
  ])
  const audit = await auditOf(t.db, { action: 'admin.package.changed', tenantId: tenant.id })
  expect(audit.map((a) => a.data)).toContainEqual(expect.objectContaining({ key: 'glazing', change: 'project', projectId: project.id, from: true, to: null }))

  const unknown = await expectProblem(
    await put(admin.c, `/api/projects/${project.id}/packages`, {
      items: [
        { packageKey: 'nothing', active: true },
        { packageKey: 'glazing', active: true },
        { packageKey: 'glazing', active: false },
      ],
    }),
    422,
    'KR_VALIDATION',
  )
  expect(Object.keys(unknown.errors ?? {})).toEqual(['items.0.packageKey', 'items.2.packageKey'])
  await expectProblem(await put(admin.c, `/api/projects/${project.id}/packages`, { items: [{ packageKey: 'glazing', active: 'yes' }] }), 400, 'KR_VALIDATION')
})

test('role matrix: only administrators read or change packages', async () => {
  const { tenant, admin, writer, reader } = await organisation(t)
  await insertPackages(t, tenant.id, [{ key: 'glazing', name: 'Glazing' }])
  const project = await newProject(admin.c)
  for (const member of [writer, reader]) {
    await expectProblem(await member.c.get(orgPath(tenant.id)), 403, 'KR_FORBIDDEN')
    await expectProblem(await put(member.c, orgPath(tenant.id), { items: [] }), 403, 'KR_FORBIDDEN')
    await expectProblem(await patch(member.c, `${orgPath(tenant.id)}/glazing`, { active: false }), 403, 'KR_FORBIDDEN')
    await expectProblem(await member.c.get(`/api/admin/projects/${project.id}/packages`), 403, 'KR_FORBIDDEN')
    await expectProblem(await put(member.c, `/api/projects/${project.id}/packages`, { items: [] }), 403, 'KR_FORBIDDEN')
  }
  expect((await body<List>(await admin.c.get(orgPath(tenant.id)))).items).toEqual([expect.objectContaining({ key: 'glazing', active: true })])
  await expectProblem(await t.fetch(orgPath(tenant.id)), 401)
})

test('cross-tenant: another organisation’s id and projects are not found', async () => {
  const a = await organisation(t)
  const b = await organisation(t)
  await insertPackages(t, a.tenant.id, [{ key: 'glazing', name: 'Glazing' }])
  const projectOfA = await newProject(a.admin.c)
  await expectProblem(await b.admin.c.get(orgPath(a.tenant.id)), 404, 'KR_NOT_FOUND')
  await expectProblem(await put(b.admin.c, orgPath(a.tenant.id), { items: [] }), 404, 'KR_NOT_FOUND')
  await expectProblem(await patch(b.admin.c, `${orgPath(a.tenant.id)}/glazing`, { active: false }), 404, 'KR_NOT_FOUND')
  await expectProblem(await patch(b.admin.c, `${orgPath(b.tenant.id)}/glazing`, { active: false }), 404, 'KR_NOT_FOUND')
  await expectProblem(await b.admin.c.get(`/api/admin/projects/${projectOfA.id}/packages`), 404, 'KR_NOT_FOUND')
  await expectProblem(await put(b.admin.c, `/api/projects/${projectOfA.id}/packages`, { items: [] }), 404, 'KR_NOT_FOUND')
  await expectProblem(await b.admin.c.get(orgPath('not-a-uuid')), 404, 'KR_NOT_FOUND')
  expect((await body<List>(await a.admin.c.get(orgPath(a.tenant.id)))).items).toEqual([expect.objectContaining({ key: 'glazing', active: true })])
})

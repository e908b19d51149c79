import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { users } from '#server/db/schema'
import type { Member, PackageInfo } from '~/lib/reporting/types'
import { addMembership, client, createUser, expectProblem } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, insertPackages, newProject, organisation, setProjectPackage, signedMember } from '#tests/helpers/reporting-a'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend()
})

afterAll(async () => {
  await t.close()
})

const PACKAGES = [
  { key: 'roofing', name: 'Roofing', sortOrder: 30 },
  { key: 'civils', name: 'Civils', sortOrder: 10 },
  { key: 'concrete', name: 'Concrete', sortOrder: 20 },
  { key: 'demolition', name: 'Demolition', sortOrder: 40, active: false },
]

test('GET /api/packages answers the organisation’s packages in their order, with their active flag, to every role', async () => {
  const { tenant, admin, writer, reader } = await organisation(t)
  await insertPackages(t, tenant.id, PACKAGES)
  const other = await signedMember(t, 'admin')
  await insertPackages(t, other.tenant.id, [{ key: 'glazing', name: 'Glazing' }])

  for (const member of [admin, writer, reader]) {
    expect(await body<{ items: PackageInfo[] }>(await member.c.get('/api/packages'))).toEqual({
      items: [
        { key: 'civils', name: 'Civils', active: true },
        { key: 'concrete', name: 'Concrete', active: true },
        { key: 'roofing', name: 'Roofing', active: true },
        { key: 'demolition', name: 'Demolition', active: false },
      ],
    })
  }
  expect(await body<{ items: PackageInfo[] }>(await other.c.get('/api/packages'))).toEqual({ items: [{ key: 'glazing', name: 'Glazing', active: true }] })
})

test('an organisation without packages answers an empty list', async () => {
  const { reader } = await organisation(t)

  expect(await body(await reader.c.get('/api/packages'))).toEqual({ items: [] })
})

test('GET /api/projects/{id}/packages applies the project’s own switches over the organisation’s', async () => {
  const { tenant, admin, reader } = await organisation(t)
  await insertPackages(t, tenant.id, PACKAGES)
  const refurb = await newProject(admin.c, { title: 'Refurb' })
  const plain = await newProject(admin.c, { title: 'Plain' })
  await setProjectPackage(t, tenant.id, refurb.id, 'demolition', true)
  await setProjectPackage(t, tenant.id, refurb.id, 'roofing', false)

  const forRefurb = await body<{ items: PackageInfo[] }>(await reader.c.get(`/api/projects/${refurb.id}/packages`))
  const forPlain = await body<{ items: PackageInfo[] }>(await reader.c.get(`/api/projects/${plain.id}/packages`))

  expect(forRefurb.items).toEqual([
    { key: 'civils', name: 'Civils', active: true },
    { key: 'concrete', name: 'Concrete', active: true },
    { key: 'roofing', name: 'Roofing', active: false },
    { key: 'demolition', name: 'Demolition', active: true },
  ])
  expect(forPlain.items.map((p) => [p.key, p.active])).toEqual([
    ['civils', true],
    ['concrete', true],
    ['roofing', true],
    ['demolition', false],
  ])
})

test("GET /api/projects/{id}/packages answers 404 for another tenant's project and for unknown ids", async () => {
  const owner = await organisation(t)
  await insertPackages(t, owner.tenant.id, PACKAGES)
  const project = await newProject(owner.admin.c)
  const stranger = await signedMember(t, 'admin')
  await insertPackages(t, stranger.tenant.id, [{ key: 'civils', name: 'Their civils' }])

  await expectProblem(await stranger.c.get(`/api/projects/${project.id}/packages`), 404, 'KR_NOT_FOUND')
  await expectProblem(await owner.admin.c.get('/api/projects/00000000-0000-4000-8000-000000000000/packages'), 404, 'KR_NOT_FOUND')
  await expectProblem(await owner.admin.c.get('/api/projects/nope/packages'), 404, 'KR_NOT_FOUND')
})

test('GET /api/members answers the active members with their name, e-mail and role, by name, to every role', async () => {
  const { admin, writer, reader } = await organisation(t)
  await t.db.update(users).set({ displayName: 'Bea Admin' }).where(eq(users.id, admin.user.id))
  await t.db.update(users).set({ displayName: 'ann writer' }).where(eq(users.id, writer.user.id))
  await t.db.update(users).set({ displayName: 'Cat Reader' }).where(eq(users.id, reader.user.id))

  const expected: Member[] = [
    { userId: writer.user.id, displayName: 'ann writer', email: writer.user.email, roleKey: 'read-write' },
    { userId: admin.user.id, displayName: 'Bea Admin', email: admin.user.email, roleKey: 'admin' },
    { userId: reader.user.id, displayName: 'Cat Reader', email: reader.user.email, roleKey: 'read-only' },
  ]
  for (const member of [admin, writer, reader]) {
    expect(await body<{ items: Member[] }>(await member.c.get('/api/members'))).toEqual({ items: expected })
  }
})

test('GET /api/members leaves out invited and suspended memberships, blocked and inactive accounts, and other organisations', async () => {
  const { tenant, admin } = await organisation(t)
  const invited = await createUser(t.db)
  const suspended = await createUser(t.db)
  const blocked = await createUser(t.db, { status: 'blocked' })
  const inactive = await createUser(t.db, { status: 'inactive' })
  await addMembership(t.db, tenant.id, invited.id, { status: 'invited' })
  await addMembership(t.db, tenant.id, suspended.id, { status: 'suspended' })
  await addMembership(t.db, tenant.id, blocked.id)
  await addMembership(t.db, tenant.id, inactive.id)
  const elsewhere = await signedMember(t, 'read-write')

  const members = (await body<{ items: Member[] }>(await admin.c.get('/api/members'))).items.map((m) => m.userId)

  expect(members).toHaveLength(3)
  for (const id of [invited.id, suspended.id, blocked.id, inactive.id, elsewhere.user.id]) expect(members).not.toContain(id)
  expect((await body<{ items: Member[] }>(await elsewhere.c.get('/api/members'))).items.map((m) => m.userId)).toEqual([elsewhere.user.id])
})

test('without a session packages and members answer 401', async () => {
  const anonymous = client(t)

  await expectProblem(await anonymous.get('/api/packages'), 401, 'KR_UNAUTHENTICATED')
  await expectProblem(await anonymous.get('/api/members'), 401, 'KR_UNAUTHENTICATED')
  await expectProblem(await anonymous.get('/api/projects/00000000-0000-4000-8000-000000000000/packages'), 401, 'KR_UNAUTHENTICATED')
})

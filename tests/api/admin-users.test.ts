import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { devices, sessions, users } from '#server/db/schema'
import { projects } from '#server/db/schema-reporting'
import { withTenant } from '#server/db/tenancy'
import type { AdminOrganisation, AdminRole, AdminUser, HardDeleteResult } from '~/lib/admin/users'
import { addMembership, auditOf, client, createMember, createUser, expectProblem, mailsTo, signIn, tokenFromMail, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, changeLogOf, newProject, organisation, patch, signedMember } from '#tests/helpers/reporting-a'

/** docs/admin/users.md: Administration › users, roles, organisations and members. Through HTTP. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-25T09:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

type Page = { items: AdminUser[]; nextCursor: string | null }

const ids = (page: Page) => page.items.map((u) => u.id)

function idCalls(userId: string, organisationId: string): Array<(c: TestClient) => Promise<Response>> {
  return [
    (c) => c.get(`/api/admin/users/${userId}`),
    (c) => patch(c, `/api/admin/users/${userId}`, { position: 'Site lead' }),
    (c) => c.delete(`/api/admin/users/${userId}`),
    (c) => c.delete(`/api/admin/users/${userId}/hard`),
    (c) => c.post(`/api/admin/users/${userId}/password`),
    (c) => c.post(`/api/admin/users/${userId}/password/set`, { password: 'a brand new password' }),
    (c) => c.post(`/api/admin/organisations/${organisationId}/members`, { email: 'someone@example.com', roleKey: 'read-only' }),
  ]
}

test('only administrators reach the calls: read-write and read-only members get 403 on every one', async () => {
  const { tenant, writer, reader } = await organisation(t)
  const calls = [
    (c: TestClient) => c.get('/api/admin/users'),
    (c: TestClient) => c.get('/api/admin/roles'),
    (c: TestClient) => c.get('/api/admin/organisations'),
    ...idCalls(writer.user.id, tenant.id),
  ]
  for (const member of [writer, reader]) {
    for (const call of calls) await expectProblem(await call(member.c), 403, 'KR_FORBIDDEN')
  }
  expect(
    await client(t)
      .get('/api/admin/users')
      .then((r) => r.status),
  ).toBe(401)
})

test("another organisation's ids answer 404 to an administrator, for every call that takes one", async () => {
  const a = await organisation(t)
  const other = await signedMember(t, 'admin')
  for (const call of idCalls(a.writer.user.id, a.tenant.id)) await expectProblem(await call(other.c), 404, 'KR_NOT_FOUND')
  await expectProblem(await other.c.get(`/api/admin/users?organisationId=${a.tenant.id}`), 404, 'KR_NOT_FOUND')
  for (const bad of ['not-a-uuid', randomUUID()]) await expectProblem(await other.c.get(`/api/admin/users/${bad}`), 404, 'KR_NOT_FOUND')
  // Nothing changed in A.
  const writer = await body<AdminUser>(await a.admin.c.get(`/api/admin/users/${a.writer.user.id}`))
  expect(writer).toMatchObject({ status: 'Active', position: null })
})

test('roles, organisations and the admin user shape', async () => {
  const { tenant, admin, writer } = await organisation(t)
  const roles = await body<{ items: AdminRole[] }>(await admin.c.get('/api/admin/roles'))
  expect(roles.items).toEqual([
    { key: 'admin', name: 'Administrator' },
    { key: 'read-write', name: 'Read & Write' },
    { key: 'read-only', name: 'Read Only' },
  ])

  // The admin also runs a second organisation, and belongs to a third as a plain member.
  const second = await createMember(t.db, { roleKey: 'admin' })
  await addMembership(t.db, second.tenant.id, admin.user.id, { roleKey: 'admin', isDefault: false })
  const third = await createMember(t.db, { roleKey: 'admin' })
  await addMembership(t.db, third.tenant.id, admin.user.id, { roleKey: 'read-only', isDefault: false })
  const orgs = await body<{ items: AdminOrganisation[] }>(await admin.c.get('/api/admin/organisations'))
  expect(orgs.items.map((o) => o.id).sort()).toEqual([tenant.id, second.tenant.id].sort())
  expect(orgs.items.find((o) => o.id === tenant.id)).toMatchObject({ name: tenant.name, slug: tenant.slug, memberCount: 3, isCurrent: true })
  expect(orgs.items.find((o) => o.id === second.tenant.id)).toMatchObject({ memberCount: 2, isCurrent: false })

  // The writer belongs to the second and third organisations too: the admin sees the second only.
  await addMembership(t.db, second.tenant.id, writer.user.id, { roleKey: 'read-only', isDefault: false })
  await addMembership(t.db, third.tenant.id, writer.user.id, { roleKey: 'admin', isDefault: false })
  const user = await body<AdminUser>(await admin.c.get(`/api/admin/users/${writer.user.id}`))
  expect(user).toEqual({
    id: writer.user.id,
    displayName: writer.user.displayName,
    firstName: null,
    lastName: null,
    position: null,
    email: writer.user.email,
    status: 'Active',
    isMfaEnforced: false,
    revision: 0,
    createdAtUtc: expect.any(String),
    updatedAtUtc: expect.any(String),
    memberships: [
      {
        organisationId: tenant.id,
        organisationName: tenant.name,
        organisationSlug: tenant.slug,
        roleKey: 'read-write',
        statusDisplayName: 'Active',
        isDefault: true,
        namespacedUrl: `/auth/login?tenantSlug=${tenant.slug}`,
      },
      expect.objectContaining({ organisationId: second.tenant.id, roleKey: 'read-only', isDefault: false }),
    ],
  })
})

test('the list: this organisation only, by name, 50 a page, with filters and a literal search', async () => {
  const { tenant, admin } = await organisation(t)
  const outsider = await createMember(t.db, { displayName: 'Zed Outsider' })
  const people = []
  for (let i = 0; i < 5; i++) {
    const m = await createMember(t.db, {
      tenant,
      roleKey: i % 2 ? 'read-only' : 'read-write',
      displayName: `Person ${i}`,
      email: `person${i}-${randomUUID().slice(0, 6)}@example.com`,
    })
    people.push(m)
  }
  const odd = await createMember(t.db, { tenant, displayName: 'Percent 100% Sure_Thing' })

  const all = await body<Page>(await admin.c.get('/api/admin/users'))
  expect(all.items).toHaveLength(9)
  expect(all.nextCursor).toBeNull()
  expect(ids(all)).not.toContain(outsider.user.id)
  const names = all.items.map((u) => u.displayName.toLowerCase())
  expect(names).toEqual([...names].sort())
  expect(all.items.every((u) => u.memberships.length === 1 && u.memberships[0]?.organisationId === tenant.id)).toBe(true)

  // Paging: 2 at a time visits everyone once.
  const seen: string[] = []
  let after: string | null = null
  for (let guard = 0; guard < 10; guard++) {
    const query: string = `/api/admin/users?limit=2${after ? `&after=${after}` : ''}`
    const page = await body<Page>(await admin.c.get(query))
    seen.push(...ids(page))
    after = page.nextCursor
    if (!after) break
  }
  expect(seen).toEqual(ids(all))
  await expectProblem(await admin.c.get('/api/admin/users?after=garbage'), 400, 'KR_VALIDATION')
  // A cursor holding a NUL (PostgreSQL stores none) is not one the server made: 400, never 500.
  await expectProblem(await admin.c.get(`/api/admin/users?after=${Buffer.from(JSON.stringify({ n: 'a\u0000', id: randomUUID() })).toString('base64url')}`), 400, 'KR_VALIDATION')
  await expectProblem(await admin.c.get('/api/admin/users?limit=500'), 400, 'KR_VALIDATION')
  await expectProblem(await admin.c.get('/api/admin/users?roleKey=owner'), 400, 'KR_VALIDATION')
  await expectProblem(await admin.c.get('/api/admin/users?status=gone'), 400, 'KR_VALIDATION')

  const readers = await body<Page>(await admin.c.get(`/api/admin/users?organisationId=${tenant.id}&roleKey=read-only`))
  expect(readers.items.every((u) => u.memberships[0]?.roleKey === 'read-only')).toBe(true)
  expect(ids(readers)).toEqual(expect.arrayContaining([people[1]!.user.id, people[3]!.user.id]))
  expect(ids(readers)).not.toContain(people[0]!.user.id)
  expect(ids(await body<Page>(await admin.c.get(`/api/admin/users?q=${encodeURIComponent('PERSON 3')}`)))).toEqual([people[3]!.user.id])
  expect(ids(await body<Page>(await admin.c.get(`/api/admin/users?q=${encodeURIComponent(people[2]!.user.email.toUpperCase())}`)))).toEqual([people[2]!.user.id])
  expect(ids(await body<Page>(await admin.c.get(`/api/admin/users?q=${encodeURIComponent('100%')}`)))).toEqual([odd.user.id])
  expect(ids(await body<Page>(await admin.c.get(`/api/admin/users?q=${encodeURIComponent('n_1')}`)))).toEqual([])
  expect(ids(await body<Page>(await admin.c.get(`/api/admin/users?q=${encodeURIComponent('%')}`)))).toEqual([odd.user.id])

  await body<AdminUser>(await patch(admin.c, `/api/admin/users/${people[0]!.user.id}`, { status: 'Suspended' }))
  expect(ids(await body<Page>(await admin.c.get('/api/admin/users?status=Suspended')))).toEqual([people[0]!.user.id])
  expect(ids(await body<Page>(await admin.c.get('/api/admin/users?status=active')))).not.toContain(people[0]!.user.id)
})

test('PATCH changes the person and the membership, audits and announces; suspending ends their sessions here', async () => {
  const { tenant, admin, writer } = await organisation(t)
  const other = await createMember(t.db, { roleKey: 'admin' })
  await addMembership(t.db, other.tenant.id, writer.user.id, { isDefault: false })
  const elsewhere = await signedInClientIn(writer, other.tenant.id)

  const changed = await body<AdminUser>(
    await patch(admin.c, `/api/admin/users/${writer.user.id}`, {
      firstName: 'Ada',
      lastName: 'Byron',
      displayName: 'Ada B.',
      position: 'Engineer',
      isMfaEnforced: true,
      roleKey: 'read-only',
    }),
  )
  expect(changed).toMatchObject({ firstName: 'Ada', lastName: 'Byron', displayName: 'Ada B.', position: 'Engineer', isMfaEnforced: true, status: 'Active' })
  expect(changed.memberships[0]).toMatchObject({ roleKey: 'read-only' })
  expect((await body<AdminUser>(await patch(admin.c, `/api/admin/users/${writer.user.id}`, { position: '' }))).position).toBeNull()
  await expectProblem(await patch(admin.c, `/api/admin/users/${writer.user.id}`, { displayName: '' }), 400, 'KR_VALIDATION')
  await expectProblem(await patch(admin.c, `/api/admin/users/${writer.user.id}`, { status: 'Deleted' }), 400, 'KR_VALIDATION')
  await expectProblem(await patch(admin.c, `/api/admin/users/${writer.user.id}`, { email: 'x@example.com' }), 400, 'KR_VALIDATION')

  const suspended = await body<AdminUser>(await patch(admin.c, `/api/admin/users/${writer.user.id}`, { status: 'Suspended' }))
  expect(suspended.status).toBe('Suspended')
  expect((await writer.c.get('/api/admin/roles')).status).toBe(401)
  expect((await elsewhere.get('/auth/session')).status).toBe(200)
  const back = await body<AdminUser>(await patch(admin.c, `/api/admin/users/${writer.user.id}`, { status: 'Active' }))
  expect(back.status).toBe('Active')

  const actions = (await auditOf(t.db, { tenantId: tenant.id, actorUserId: admin.user.id })).map((a) => a.action)
  expect(actions).toEqual(['admin.user.changed', 'admin.member.role.changed', 'admin.user.changed', 'admin.user.deactivated', 'admin.user.reactivated'])
  const changes = (await changeLogOf(t, tenant.id)).filter((c) => c.entityId === writer.user.id).map((c) => `${c.entity} ${c.changeType}`)
  expect(changes).toEqual(['User Updated', 'Membership Updated', 'User Updated', 'Membership Updated', 'Membership Updated'])
})

async function signedInClientIn(member: { user: { id: string } }, tenantId: string): Promise<TestClient> {
  const { signedInClient } = await import('#tests/helpers/auth')
  return signedInClient(t, { user: member.user, tenant: { id: tenantId } })
}

test('the last active administrator cannot be demoted, suspended, deactivated or deleted; nor can an admin remove themselves', async () => {
  const { admin, writer } = await organisation(t)
  const self = `/api/admin/users/${admin.user.id}`
  await expectProblem(await patch(admin.c, self, { roleKey: 'read-write' }), 409, 'KR_LAST_ADMIN')
  await expectProblem(await patch(admin.c, self, { status: 'Suspended' }), 409, 'KR_SELF_CHANGE')
  await expectProblem(await admin.c.delete(self), 409, 'KR_SELF_CHANGE')
  await expectProblem(await admin.c.delete(`${self}/hard`), 409, 'KR_SELF_CHANGE')

  // With a second admin, the first may step down; then the second is the last one.
  await body<AdminUser>(await patch(admin.c, `/api/admin/users/${writer.user.id}`, { roleKey: 'admin' }))
  const second = await signedInClientIn(writer, admin.tenant.id)
  await body<AdminUser>(await patch(admin.c, self, { roleKey: 'read-write' }))
  await expectProblem(await patch(second, `/api/admin/users/${writer.user.id}`, { roleKey: 'read-only' }), 409, 'KR_LAST_ADMIN')
  expect((await admin.c.get('/api/admin/users')).status).toBe(403)
})

test('DELETE deactivates: the membership is suspended and the sessions here end; a suspended admin no longer counts', async () => {
  const { tenant, admin, writer } = await organisation(t)
  const user = await body<AdminUser>(await admin.c.delete(`/api/admin/users/${writer.user.id}`))
  expect(user.status).toBe('Suspended')
  expect(user.memberships[0]?.statusDisplayName).toBe('Suspended')
  const open = await t.db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.userId, writer.user.id), eq(sessions.tenantId, tenant.id)))
  const [row] = await t.db.select({ revokedAt: sessions.revokedAt }).from(sessions).where(eq(sessions.id, open[0]!.id))
  expect(row?.revokedAt).not.toBeNull()
  expect((await auditOf(t.db, { tenantId: tenant.id, action: 'admin.user.deactivated' })).length).toBe(1)
})

test('hard delete anonymises a person of no other organisation; their records still point at the tombstone', async () => {
  const { tenant, admin } = await organisation(t)
  const leaver = await signedMember(t, 'read-write', tenant)
  const project = await newProject(leaver.c, { title: 'Leaver project', code: null })
  await withTenant(t.db, tenant.id, (tx) => tx.insert(devices).values({ tenantId: tenant.id, userId: leaver.user.id, deviceId: 'phone-1', platform: 'ios' }))

  const result = await body<HardDeleteResult>(await admin.c.delete(`/api/admin/users/${leaver.user.id}/hard`))
  expect(result).toEqual({ id: leaver.user.id, outcome: 'anonymised' })
  const [person] = await t.db.select().from(users).where(eq(users.id, leaver.user.id))
  expect(person).toMatchObject({
    displayName: 'Deleted user',
    email: `deleted-${leaver.user.id}@invalid`,
    passwordHash: null,
    status: 'deleted',
    firstName: null,
    mfaEnforced: false,
  })
  const [made] = await withTenant(t.db, tenant.id, (tx) => tx.select({ createdBy: projects.createdBy }).from(projects).where(eq(projects.id, project.id)))
  expect(made?.createdBy).toBe(leaver.user.id)
  expect(await t.db.select().from(sessions).where(eq(sessions.userId, leaver.user.id))).toEqual([])
  expect(await withTenant(t.db, tenant.id, (tx) => tx.select().from(devices).where(eq(devices.userId, leaver.user.id)))).toEqual([])
  await expectProblem(await admin.c.get(`/api/admin/users/${leaver.user.id}`), 404, 'KR_NOT_FOUND')
  expect((await leaver.c.get('/auth/session')).status).toBe(401)
  const [audit] = await auditOf(t.db, { tenantId: tenant.id, action: 'admin.user.deleted' })
  expect(audit?.data).toMatchObject({ outcome: 'anonymised', devicesRemoved: 1 })
})

test('hard delete of a person of other organisations removes only this membership', async () => {
  const { tenant, admin, writer } = await organisation(t)
  const other = await createMember(t.db, { roleKey: 'admin' })
  await addMembership(t.db, other.tenant.id, writer.user.id, { isDefault: false })
  const result = await body<HardDeleteResult>(await admin.c.delete(`/api/admin/users/${writer.user.id}/hard`))
  expect(result.outcome).toBe('removed-from-organisation')
  const [person] = await t.db.select().from(users).where(eq(users.id, writer.user.id))
  expect(person).toMatchObject({ email: writer.user.email, status: 'active' })
  expect(ids(await body<Page>(await admin.c.get('/api/admin/users')))).not.toContain(writer.user.id)
  // They still sign in, into their other organisation.
  const session = await signIn(client(t), writer.user)
  expect(session.tenantId).toBe(other.tenant.id)
  expect(session.tenantId).not.toBe(tenant.id)
})

test('password: a mailed reset link that works, and a password set directly that signs in; both audited', async () => {
  const { tenant, admin, writer } = await organisation(t)
  const response = await admin.c.post(`/api/admin/users/${writer.user.id}/password`, undefined, { headers: { 'idempotency-key': randomUUID() } })
  expect(response.status).toBe(202)
  const [mail] = await mailsTo(t.db, writer.user.email)
  expect(mail).toMatchObject({ template: 'admin-password-reset', tenantId: tenant.id })
  const token = tokenFromMail(mail!.textBody, '/auth/forgot-password')
  await body(await client(t).post('/auth/password/reset/confirm', { token, password: 'a password from the link' }))
  await signIn(client(t), { email: writer.user.email, password: 'a password from the link' })

  await expectProblem(await admin.c.post(`/api/admin/users/${writer.user.id}/password/set`, { password: 'short' }), 400, 'KR_VALIDATION')
  const later = await signedInClientIn(writer, tenant.id)
  await body<AdminUser>(await admin.c.post(`/api/admin/users/${writer.user.id}/password/set`, { password: 'set by the administrator' }))
  expect((await later.get('/auth/session')).status).toBe(401)
  expect((await admin.c.get('/auth/session')).status).toBe(200)
  await signIn(client(t), { email: writer.user.email, password: 'set by the administrator' })
  const actions = (await auditOf(t.db, { tenantId: tenant.id, actorUserId: admin.user.id })).map((a) => a.action)
  expect(actions).toEqual(['admin.user.password.reset', 'admin.user.password.set'])
})

test('adding a member by e-mail: an account is needed, a member cannot be added twice', async () => {
  const { tenant, admin } = await organisation(t)
  const person = await createUser(t.db, { email: `Someone-${randomUUID().slice(0, 6)}@example.com` })
  const added = await body<AdminUser>(await admin.c.post(`/api/admin/organisations/${tenant.id}/members`, { email: person.email.toLowerCase(), roleKey: 'read-only' }), 201)
  expect(added).toMatchObject({ id: person.id, status: 'Active' })
  expect(added.memberships[0]).toMatchObject({ organisationId: tenant.id, roleKey: 'read-only', isDefault: false })
  const again = await expectProblem(await admin.c.post(`/api/admin/organisations/${tenant.id}/members`, { email: person.email, roleKey: 'admin' }), 409, 'KR_ALREADY_MEMBER')
  expect(again.errors?.email).toBeDefined()
  const missing = await expectProblem(
    await admin.c.post(`/api/admin/organisations/${tenant.id}/members`, { email: 'nobody-here@example.com', roleKey: 'admin' }),
    404,
    'KR_NOT_FOUND',
  )
  expect(missing.errors?.email?.[0]).toMatch(/invite/i)
  await expectProblem(await admin.c.post(`/api/admin/organisations/${tenant.id}/members`, { email: 'not an address', roleKey: 'boss' }), 400, 'KR_VALIDATION')
  expect((await auditOf(t.db, { tenantId: tenant.id, action: 'admin.member.added' })).length).toBe(1)
})

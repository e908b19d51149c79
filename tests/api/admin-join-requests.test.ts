import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { memberships } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import { addMembership, auditOf, createMember, createTenant, createUser, expectProblem, mailsTo, signedInClient, type TestMember } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, organisation, signedMember } from '#tests/helpers/reporting-a'

/** Join requests (issue 13, docs/admin/join-requests-and-devices.md), through HTTP. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-16T09:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

type Own = { id: string; organisationName: string; organisationSlug: string; status: string; declineReason: string | null; createdAt: string; decidedAt: string | null }
type AdminView = {
  id: string
  requester: { id: string; displayName: string; email: string }
  message: string | null
  status: string
  roleKey: string | null
  declineReason: string | null
  decidedBy: { id: string; displayName: string } | null
  createdAtUtc: string
  decidedAtUtc: string | null
}
type Page<T> = { items: T[]; nextCursor: string | null }

/** A person of another organisation, signed in there. */
async function outsider() {
  const member = await createMember(t.db, { roleKey: 'admin' })
  return { ...member, c: await signedInClient(t, member) }
}

async function membershipOf(tenantId: string, userId: string) {
  const [row] = await withTenant(t.db, tenantId, (tx) =>
    tx
      .select({ roleKey: memberships.roleKey, status: memberships.status })
      .from(memberships)
      .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId))),
  )
  return row
}

async function ask(requester: Awaited<ReturnType<typeof outsider>>, slug: string, message?: string) {
  return body<Own>(await requester.c.post('/api/join-requests', { slug, ...(message === undefined ? {} : { message }) }), 201)
}

test('a person of another organisation asks to join by slug; the admins are mailed; the admin approves with a role; the requester is mailed and becomes a member', async () => {
  const { tenant, admin, writer } = await organisation(t)
  const secondAdmin = await signedMember(t, 'admin', tenant)
  const requester = await outsider()

  const created = await ask(requester, `  ${tenant.slug.toUpperCase()} `, 'I run the site team at Riverside.')
  expect(created).toEqual({
    id: expect.any(String),
    organisationName: tenant.name,
    organisationSlug: tenant.slug,
    status: 'pending',
    declineReason: null,
    createdAt: t.now().toISOString(),
    decidedAt: null,
  })
  expect((await body<{ items: Own[] }>(await requester.c.get('/api/join-requests/mine'))).items).toEqual([created])

  for (const a of [admin, secondAdmin]) {
    const mails = await mailsTo(t.db, a.user.email)
    expect(mails).toEqual([expect.objectContaining({ template: 'join-request-received', tenantId: tenant.id })])
    expect(mails[0]?.textBody).toContain('/admin/join-requests')
    expect(mails[0]?.textBody).toContain('I run the site team at Riverside.')
    expect(mails[0]?.textBody).toContain(requester.user.email)
  }
  expect(await mailsTo(t.db, writer.user.email)).toEqual([])
  expect(await auditOf(t.db, { action: 'admin.join-request.created', tenantId: tenant.id })).toEqual([expect.objectContaining({ actorUserId: requester.user.id })])

  const pending = await body<Page<AdminView>>(await admin.c.get('/api/admin/join-requests'))
  expect(pending.items).toEqual([
    {
      id: created.id,
      requester: { id: requester.user.id, displayName: requester.user.displayName, email: requester.user.email },
      message: 'I run the site team at Riverside.',
      status: 'pending',
      roleKey: null,
      declineReason: null,
      decidedBy: null,
      createdAtUtc: created.createdAt,
      decidedAtUtc: null,
    },
  ])
  expect(pending.nextCursor).toBeNull()

  t.now.advance(60_000)
  const approved = await body<AdminView>(await admin.c.post(`/api/admin/join-requests/${created.id}/approve`, { roleKey: 'read-write' }))
  expect(approved).toMatchObject({ status: 'approved', roleKey: 'read-write', decidedBy: { id: admin.user.id }, decidedAtUtc: t.now().toISOString() })
  expect(await membershipOf(tenant.id, requester.user.id)).toEqual({ roleKey: 'read-write', status: 'active' })
  const decided = (await mailsTo(t.db, requester.user.email)).filter((m) => m.template === 'join-request-decided')
  expect(decided).toHaveLength(1)
  expect(decided[0]?.subject).toContain(tenant.name)
  expect(await auditOf(t.db, { action: 'admin.join-request.approved', tenantId: tenant.id })).toEqual([
    expect.objectContaining({ actorUserId: admin.user.id, data: expect.objectContaining({ userId: requester.user.id, roleKey: 'read-write', membership: 'created' }) }),
  ])
  expect((await body<Page<AdminView>>(await admin.c.get('/api/admin/join-requests'))).items).toEqual([])
  expect((await body<Page<AdminView>>(await admin.c.get('/api/admin/join-requests?status=approved'))).items.map((r) => r.id)).toEqual([created.id])
  expect((await body<{ items: Own[] }>(await requester.c.get('/api/join-requests/mine'))).items).toEqual([{ ...created, status: 'approved', decidedAt: t.now().toISOString() }])

  // Deciding twice: 409 with the current status; asking again as a member: 409.
  const twice = await expectProblem(await admin.c.post(`/api/admin/join-requests/${created.id}/decline`, { reason: 'No' }), 409, 'KR_JOIN_REQUEST_DECIDED')
  expect(twice.requestStatus).toBe('approved')
  await expectProblem(await admin.c.post(`/api/admin/join-requests/${created.id}/approve`, { roleKey: 'admin' }), 409, 'KR_JOIN_REQUEST_DECIDED')
  await expectProblem(await requester.c.post('/api/join-requests', { slug: tenant.slug }), 409, 'KR_ALREADY_MEMBER')
})

test('decline needs a reason; the requester reads it; a second request while one is pending is 409; a suspended member is reactivated on approval', async () => {
  const { tenant, admin } = await organisation(t)
  const requester = await outsider()
  const first = await ask(requester, tenant.slug)
  await expectProblem(await requester.c.post('/api/join-requests', { slug: tenant.slug }), 409, 'KR_JOIN_REQUEST_PENDING')

  const missing = await expectProblem(await admin.c.post(`/api/admin/join-requests/${first.id}/decline`, { reason: '  ' }), 400, 'KR_VALIDATION')
  expect(Object.keys(missing.errors ?? {})).toEqual(['reason'])
  await expectProblem(await admin.c.post(`/api/admin/join-requests/${first.id}/decline`, { reason: 'x'.repeat(501) }), 400, 'KR_VALIDATION')
  const badRole = await expectProblem(await admin.c.post(`/api/admin/join-requests/${first.id}/approve`, { roleKey: 'owner' }), 400, 'KR_VALIDATION')
  expect(Object.keys(badRole.errors ?? {})).toEqual(['roleKey'])

  const declined = await body<AdminView>(await admin.c.post(`/api/admin/join-requests/${first.id}/decline`, { reason: 'We only take site staff.' }))
  expect(declined).toMatchObject({ status: 'declined', declineReason: 'We only take site staff.', roleKey: null })
  expect(await membershipOf(tenant.id, requester.user.id)).toBeUndefined()
  const mail = (await mailsTo(t.db, requester.user.email)).find((m) => m.template === 'join-request-decided')
  expect(mail?.textBody).toContain('We only take site staff.')
  expect((await body<{ items: Own[] }>(await requester.c.get('/api/join-requests/mine'))).items[0]).toMatchObject({ status: 'declined', declineReason: 'We only take site staff.' })
  expect(await auditOf(t.db, { action: 'admin.join-request.declined', tenantId: tenant.id })).toHaveLength(1)

  // A suspended member asks again and is reactivated with the role chosen.
  const suspended = await createUser(t.db)
  await addMembership(t.db, tenant.id, suspended.id, { roleKey: 'admin', status: 'suspended', isDefault: false })
  await addMembership(t.db, requester.tenant.id, suspended.id, { roleKey: 'read-only' })
  const s = await signedInClient(t, { user: suspended, tenant: requester.tenant })
  const again = await body<Own>(await s.post('/api/join-requests', { slug: tenant.slug }), 201)
  await body<AdminView>(await admin.c.post(`/api/admin/join-requests/${again.id}/approve`, { roleKey: 'read-only' }))
  expect(await membershipOf(tenant.id, suspended.id)).toEqual({ roleKey: 'read-only', status: 'active' })
})

test('an unknown slug is 404 with a field error on slug, and tells nothing more; bad input is 400', async () => {
  const requester = await outsider()
  const unknown = await expectProblem(await requester.c.post('/api/join-requests', { slug: `no-such-org-${randomUUID().slice(0, 8)}` }), 404, 'KR_NOT_FOUND')
  expect(Object.keys(unknown.errors ?? {})).toEqual(['slug'])
  const bad = await expectProblem(await requester.c.post('/api/join-requests', { slug: 'a b/c', message: 'x'.repeat(1001) }), 400, 'KR_VALIDATION')
  expect(Object.keys(bad.errors ?? {}).sort()).toEqual(['message', 'slug'])
  await expectProblem(await requester.c.post('/api/join-requests', {}), 400, 'KR_VALIDATION')
})

test('asking is rate-limited per account: the 11th request in an hour is 429, and an hour later it works again', async () => {
  const requester = await outsider()
  for (let i = 0; i < 10; i++) await expectProblem(await requester.c.post('/api/join-requests', { slug: `probe-${randomUUID().slice(0, 8)}` }), 404, 'KR_NOT_FOUND')
  const tenant = await createTenant(t.db)
  const limited = await expectProblem(await requester.c.post('/api/join-requests', { slug: tenant.slug }), 429, 'KR_THROTTLED')
  expect(limited.retryAfterSeconds).toBeGreaterThan(0)
  // Another person is not limited by this one.
  const other = await outsider()
  await ask(other, tenant.slug)
  t.now.advance(61 * 60_000)
  await ask({ ...requester, c: await signedInClient(t, requester) }, tenant.slug)
})

test('the requester withdraws a pending request; it cannot be decided afterwards', async () => {
  const { tenant, admin } = await organisation(t)
  const requester = await outsider()
  const created = await ask(requester, tenant.slug)
  const stranger = await outsider()
  await expectProblem(await stranger.c.post(`/api/join-requests/${created.id}/withdraw`), 404, 'KR_NOT_FOUND')
  expect(await body<Own>(await requester.c.post(`/api/join-requests/${created.id}/withdraw`))).toMatchObject({ status: 'withdrawn' })
  await expectProblem(await requester.c.post(`/api/join-requests/${created.id}/withdraw`), 409, 'KR_JOIN_REQUEST_DECIDED')
  await expectProblem(await admin.c.post(`/api/admin/join-requests/${created.id}/approve`, { roleKey: 'read-only' }), 409, 'KR_JOIN_REQUEST_DECIDED')
  expect(await auditOf(t.db, { action: 'admin.join-request.withdrawn', tenantId: tenant.id })).toHaveLength(1)
  // A new request is possible once the old one is withdrawn.
  await ask(requester, tenant.slug)
})

test('role matrix: only administrators list and decide; an admin of another organisation gets 404 for these ids', async () => {
  const { tenant, writer, reader } = await organisation(t)
  const requester = await outsider()
  const created = await ask(requester, tenant.slug)

  for (const member of [writer, reader]) {
    await expectProblem(await member.c.get('/api/admin/join-requests'), 403, 'KR_FORBIDDEN')
    await expectProblem(await member.c.post(`/api/admin/join-requests/${created.id}/approve`, { roleKey: 'admin' }), 403, 'KR_FORBIDDEN')
    await expectProblem(await member.c.post(`/api/admin/join-requests/${created.id}/decline`, { reason: 'No' }), 403, 'KR_FORBIDDEN')
  }
  const otherAdmin: TestMember & { c: Awaited<ReturnType<typeof signedInClient>> } = await outsider()
  expect((await body<Page<AdminView>>(await otherAdmin.c.get('/api/admin/join-requests?status=all'))).items).toEqual([])
  await expectProblem(await otherAdmin.c.post(`/api/admin/join-requests/${created.id}/approve`, { roleKey: 'admin' }), 404, 'KR_NOT_FOUND')
  await expectProblem(await otherAdmin.c.post(`/api/admin/join-requests/${created.id}/decline`, { reason: 'No' }), 404, 'KR_NOT_FOUND')
  await expectProblem(await otherAdmin.c.post(`/api/admin/join-requests/${randomUUID()}/approve`, { roleKey: 'admin' }), 404, 'KR_NOT_FOUND')
  await expectProblem(await otherAdmin.c.post('/api/admin/join-requests/not-an-id/approve', { roleKey: 'admin' }), 400, 'KR_VALIDATION')
  expect(await membershipOf(tenant.id, requester.user.id)).toBeUndefined()
})

test('the admin list pages by 50 with a cursor and checks its filters', async () => {
  const { tenant, admin } = await organisation(t)
  for (let i = 0; i < 3; i++) {
    const requester = await outsider()
    await ask(requester, tenant.slug)
    t.now.advance(1000)
  }
  const first = await body<Page<AdminView>>(await admin.c.get('/api/admin/join-requests?limit=2'))
  expect(first.items).toHaveLength(2)
  expect(first.nextCursor).not.toBeNull()
  const second = await body<Page<AdminView>>(await admin.c.get(`/api/admin/join-requests?limit=2&after=${first.nextCursor}`))
  expect(second.items).toHaveLength(1)
  expect(second.nextCursor).toBeNull()
  expect(new Set([...first.items, ...second.items].map((r) => r.id)).size).toBe(3)
  const bad = await expectProblem(await admin.c.get('/api/admin/join-requests?status=maybe&limit=500'), 400, 'KR_VALIDATION')
  expect(Object.keys(bad.errors ?? {}).sort()).toEqual(['limit', 'status'])
  await expectProblem(await admin.c.get('/api/admin/join-requests?after=garbage'), 400, 'KR_VALIDATION')
})

test('the calls need a session', async () => {
  const anonymous = (await import('#tests/helpers/auth')).client(t)
  await expectProblem(await anonymous.post('/api/join-requests', { slug: 'x' }), 401, 'KR_UNAUTHENTICATED')
  await expectProblem(await anonymous.get('/api/join-requests/mine'), 401, 'KR_UNAUTHENTICATED')
  await expectProblem(await anonymous.get('/api/admin/join-requests'), 401, 'KR_UNAUTHENTICATED')
})

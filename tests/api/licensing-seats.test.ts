import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import { memberships } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import { applyLicence } from '#server/domain/licensing/licence'
import type { Invite } from '~/lib/admin/invites'
import type { RevokedSeat } from '#server/domain/admin/seat-revoke'
import type { Entitlements, SeatPage } from '~/lib/licensing/seats'
import { addMembership, auditOf, client, createUser, expectProblem, mailsTo, uniqueEmail, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, newProject, organisation, patch, signedMember } from '#tests/helpers/reporting-a'

/** docs/licensing.md "Seats": the seat list, seat and admin invites, exhaustion and the switch that turns it off, revoking. Through HTTP. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-20T09:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

afterEach(() => {
  t.now.reset()
})

async function setSeats(tenantId: string, seats: number): Promise<void> {
  await withTenant(t.db, tenantId, (tx) => applyLicence(tx, tenantId, { plan: 'team', seats, validUntil: null, status: 'active', source: 'operator' }, t.now()))
}

function seatInvite(c: TestClient, tenantId: string, email = uniqueEmail('seat'), roleKey = 'read-write') {
  return c.post(`/api/tenants/${tenantId}/seats/invite`, { email, roleKey })
}

async function seatsOf(c: TestClient, tenantId: string): Promise<SeatPage> {
  return body<SeatPage>(await c.get(`/api/tenants/${tenantId}/seats`))
}

test('the seat list: every active member holds one, pending invites reserve one; seat and admin invites are ordinary invites', async () => {
  const { admin, writer, reader, tenant } = await organisation(t)
  const suspended = await createUser(t.db)
  await addMembership(t.db, tenant.id, suspended.id, { status: 'suspended' })
  const page = await seatsOf(admin.c, tenant.id)
  expect(page.seats).toEqual({ total: 10, used: 3, reserved: 0, free: 7 })
  expect(page.items.map((s) => s.userId).sort()).toEqual([admin.user.id, writer.user.id, reader.user.id].sort())
  expect(page.items.find((s) => s.userId === reader.user.id)).toMatchObject({ roleKey: 'read-only', roleName: 'Read Only', status: 'active', email: reader.user.email })

  const email = uniqueEmail('seat')
  const invited = await body<Invite>(await seatInvite(admin.c, tenant.id, email, 'read-only'), 201)
  expect(invited).toMatchObject({ email, roleKey: 'read-only', status: 'pending' })
  const adminEmail = uniqueEmail('admin')
  const adminInvite = await body<Invite>(await admin.c.post(`/api/tenants/${tenant.id}/admins/invite`, { email: adminEmail, message: 'Run the site' }), 201)
  expect(adminInvite).toMatchObject({ roleKey: 'admin', roleName: 'Administrator', message: 'Run the site' })
  expect((await mailsTo(t.db, adminEmail))[0]).toMatchObject({ template: 'invite', tenantId: tenant.id })
  // One thing: the admin invite list shows both, and the seat invites are the pending ones.
  const pending = await body<{ items: Invite[] }>(await admin.c.get(`/api/tenants/${tenant.id}/seats/invites`))
  expect(pending.items.map((i) => i.id).sort()).toEqual([invited.id, adminInvite.id].sort())
  expect((await body<{ items: Invite[] }>(await admin.c.get('/api/admin/invites?status=pending'))).items).toHaveLength(2)
  expect((await seatsOf(admin.c, tenant.id)).seats).toEqual({ total: 10, used: 3, reserved: 2, free: 5 })
  // A cancelled invite frees its seat.
  await body(await admin.c.post('/api/invites/cancel', { inviteId: invited.id }, { headers: { 'Idempotency-Key': randomUUID() } }))
  expect((await seatsOf(admin.c, tenant.id)).seats.reserved).toBe(1)

  // Bad input: an administrator through the seat invite, a missing address, a bad page.
  const bad = await expectProblem(await admin.c.post(`/api/tenants/${tenant.id}/seats/invite`, { email: 'nope', roleKey: 'admin' }), 400, 'KR_VALIDATION')
  expect(Object.keys(bad.errors ?? {}).sort()).toEqual(['email', 'roleKey'])
  await expectProblem(await admin.c.post(`/api/tenants/${tenant.id}/admins/invite`, {}), 400, 'KR_VALIDATION')
  await expectProblem(await admin.c.get(`/api/tenants/${tenant.id}/seats?after=garbage`), 400, 'KR_VALIDATION')
  await expectProblem(await admin.c.get(`/api/tenants/${tenant.id}/seats?limit=0`), 400, 'KR_VALIDATION')
  await expectProblem(await seatInvite(admin.c, tenant.id, writer.user.email), 409, 'KR_ALREADY_MEMBER')
})

test('the seat list pages by a cursor and visits everyone once', async () => {
  const { admin, tenant } = await organisation(t)
  for (let i = 0; i < 2; i++) await signedMember(t, 'read-only', tenant)
  const ids: string[] = []
  let after: string | null = null
  for (let pages = 1; pages <= 3; pages++) {
    const page: SeatPage = await body<SeatPage>(await admin.c.get(`/api/tenants/${tenant.id}/seats?limit=2${after ? `&after=${after}` : ''}`))
    expect(page.seats.used).toBe(5)
    ids.push(...page.items.map((s) => s.id))
    after = page.nextCursor
    if (pages < 3) expect(after).not.toBeNull()
  }
  expect(after).toBeNull()
  expect(new Set(ids).size).toBe(5)
})

test('the last seat: an invite takes it, the next invite of every kind is refused with a clear problem; enforcement off lets it through', async () => {
  const { admin, tenant } = await organisation(t)
  await setSeats(tenant.id, 4)
  await body<Invite>(await seatInvite(admin.c, tenant.id), 201)
  const me = await body<Entitlements>(await admin.c.get('/api/entitlements/me'))
  expect(me.seats).toMatchObject({ total: 4, used: 3, reserved: 1, free: 0, nearLimit: true })

  const refused = await expectProblem(await seatInvite(admin.c, tenant.id), 409, 'KR_SEATS_EXHAUSTED')
  expect(refused.title).toBe('No free seat')
  expect(refused.detail).toBe(
    'All 4 seats of your Team plan are in use (3 members, 1 pending invite). Cancel an invite, revoke a seat, or buy more seats in Settings › Billing.',
  )
  expect(refused.seats).toEqual({ total: 4, used: 3, reserved: 1, free: 0 })
  await expectProblem(await admin.c.post(`/api/tenants/${tenant.id}/admins/invite`, { email: uniqueEmail() }), 409, 'KR_SEATS_EXHAUSTED')
  await expectProblem(await admin.c.post('/api/admin/invites', { email: uniqueEmail(), roleKey: 'read-only' }), 409, 'KR_SEATS_EXHAUSTED')
  // Adding a person with an account, reactivating a suspended member, approving a join request: refused too.
  const person = await createUser(t.db)
  await expectProblem(await admin.c.post(`/api/admin/organisations/${tenant.id}/members`, { email: person.email, roleKey: 'read-only' }), 409, 'KR_SEATS_EXHAUSTED')
  const away = await createUser(t.db)
  await addMembership(t.db, tenant.id, away.id, { status: 'suspended' })
  await expectProblem(await patch(admin.c, `/api/admin/users/${away.id}`, { status: 'Active' }), 409, 'KR_SEATS_EXHAUSTED')
  // A project invite that would make a new member: refused when claimed.
  const project = await newProject(admin.c)
  const made = await body<{ code: string }>(await admin.c.post(`/api/projects/${project.id}/invites/create`, { roleKey: 'read-only' }), 201)
  const outsider = await signedMember(t, 'admin')
  await expectProblem(await outsider.c.post('/api/project-invites/codes/claim', { code: made.code }), 409, 'KR_SEATS_EXHAUSTED')

  // Settings › Admin: enforcement off, the same invite goes through (nearLimit follows its own switch).
  await body(await patch(admin.c, '/api/settings/licensing', { enforceSeatLimit: false, warnNearSeatLimit: false }))
  await body<Invite>(await seatInvite(admin.c, tenant.id), 201)
  expect((await body<Entitlements>(await admin.c.get('/api/entitlements/me'))).seats).toMatchObject({ used: 3, reserved: 2, free: 0, enforced: false, nearLimit: false })
})

test('accepting an invite uses the seat it reserved, even when it was the last', async () => {
  const { admin, tenant } = await organisation(t)
  await setSeats(tenant.id, 4)
  const email = uniqueEmail('last')
  await body<Invite>(await seatInvite(admin.c, tenant.id, email), 201)
  const mail = (await mailsTo(t.db, email))[0]
  const token = /\/invite\/([A-Za-z0-9_-]{20,})/.exec(mail?.textBody ?? '')?.[1]
  const joined = await body<{ claimed: { joined: boolean } }>(await client(t).post('/api/invites/register', { token, displayName: 'Last Seat', password: 'a long enough passphrase' }), 201)
  expect(joined.claimed.joined).toBe(true)
  expect((await seatsOf(admin.c, tenant.id)).seats).toEqual({ total: 4, used: 4, reserved: 0, free: 0 })
})

test('seat and admin invites are idempotent: a replay answers the same invite, another body 422', async () => {
  const { admin, tenant } = await organisation(t)
  for (const path of [`/api/tenants/${tenant.id}/seats/invite`, `/api/tenants/${tenant.id}/admins/invite`]) {
    const key = randomUUID()
    const json = { email: uniqueEmail('idem'), ...(path.includes('seats') && { roleKey: 'read-only' }) }
    const first = await body<Invite>(await admin.c.request(path, { method: 'POST', json, headers: { 'Idempotency-Key': key } }), 201)
    const replay = await admin.c.request(path, { method: 'POST', json, headers: { 'Idempotency-Key': key } })
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(await body<Invite>(replay, 201)).toEqual(first)
    await expectProblem(await admin.c.request(path, { method: 'POST', json: { ...json, email: uniqueEmail() }, headers: { 'Idempotency-Key': key } }), 422, 'KR_IDEMPOTENCY_KEY_REUSED')
  }
  expect((await seatsOf(admin.c, tenant.id)).seats.reserved).toBe(2)
})

test('revoking a seat suspends the membership, ends the member’s sessions here (their next call is refused), deletes nothing, frees the seat', async () => {
  const { admin, writer, tenant } = await organisation(t)
  const seat = (await seatsOf(admin.c, tenant.id)).items.find((s) => s.userId === writer.user.id)
  expect(seat).toBeDefined()
  expect((await writer.c.get('/api/projects')).status).toBe(200)
  const revoked = await body<RevokedSeat>(await admin.c.post(`/api/seats/${seat?.id}/revoke`))
  expect(revoked).toMatchObject({ seatId: seat?.id, userId: writer.user.id, status: 'revoked', seats: { used: 2, free: 8 } })
  await expectProblem(await writer.c.get('/api/projects'), 401, 'KR_UNAUTHENTICATED')
  const [row] = await withTenant(t.db, tenant.id, (tx) =>
    tx.select({ status: memberships.status }).from(memberships).where(and(eq(memberships.tenantId, tenant.id), eq(memberships.userId, writer.user.id))),
  )
  expect(row?.status).toBe('suspended')
  expect((await auditOf(t.db, { action: 'licensing.seat.revoked', tenantId: tenant.id }))[0]).toMatchObject({ actorUserId: admin.user.id, data: { userId: writer.user.id } })
  // Again: the seat is no longer held.
  await expectProblem(await admin.c.post(`/api/seats/${seat?.id}/revoke`), 409, 'KR_SEAT_NOT_HELD')
})

test('revoke: never your own seat (so never the last administrator’s); bad and unknown ids 404', async () => {
  const { admin, tenant } = await organisation(t)
  const own = (await seatsOf(admin.c, tenant.id)).items.find((s) => s.userId === admin.user.id)
  const refused = await expectProblem(await admin.c.post(`/api/seats/${own?.id}/revoke`), 409, 'KR_SELF_CHANGE')
  expect(refused.detail).toBe('You cannot revoke your own seat.')
  // Another administrator's seat is fine: the caller stays an administrator.
  const second = await signedMember(t, 'admin', tenant)
  const secondSeat = (await seatsOf(admin.c, tenant.id)).items.find((s) => s.userId === second.user.id)
  await body(await admin.c.post(`/api/seats/${secondSeat?.id}/revoke`))
  await expectProblem(await admin.c.post('/api/seats/not-a-seat/revoke'), 404, 'KR_NOT_FOUND')
  await expectProblem(await admin.c.post(`/api/seats/${randomUUID()}/revoke`), 404, 'KR_NOT_FOUND')
})

test('cross-tenant matrix: another organisation’s tenantId or seatId answers 404; members who are not administrators 403', async () => {
  const { admin, writer, reader, tenant } = await organisation(t)
  const other = await organisation(t)
  const otherSeat = (await seatsOf(other.admin.c, other.tenant.id)).items[0]
  const calls = (tenantId: string, seatId: string | undefined) => [
    (c: TestClient) => c.get(`/api/tenants/${tenantId}/seats`),
    (c: TestClient) => c.get(`/api/tenants/${tenantId}/seats/invites`),
    (c: TestClient) => c.get(`/api/tenants/${tenantId}/license`),
    (c: TestClient) => seatInvite(c, tenantId),
    (c: TestClient) => c.post(`/api/tenants/${tenantId}/admins/invite`, { email: uniqueEmail() }),
    (c: TestClient) => c.post(`/api/seats/${seatId}/revoke`),
  ]
  for (const call of calls(other.tenant.id, otherSeat?.id)) await expectProblem(await call(admin.c), 404, 'KR_NOT_FOUND')
  const mine = (await seatsOf(admin.c, tenant.id)).items.find((s) => s.userId === reader.user.id)
  for (const member of [writer, reader]) {
    for (const call of calls(tenant.id, mine?.id)) await expectProblem(await call(member.c), 403, 'KR_FORBIDDEN')
  }
  // Nothing changed on the other side.
  expect((await seatsOf(other.admin.c, other.tenant.id)).seats).toEqual({ total: 10, used: 3, reserved: 0, free: 7 })
  await expectProblem(await client(t).get(`/api/tenants/${tenant.id}/seats`), 401, 'KR_UNAUTHENTICATED')
})

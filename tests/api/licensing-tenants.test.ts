import { createHash, randomUUID } from 'node:crypto'
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import { idempotencyKeys } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import { applyLicence } from '#server/domain/licensing/licence'
import { hasFeature } from '#server/domain/licensing/entitlements'
import type { Licence } from '~/lib/licensing/plans'
import type { CreatedOrganisation, Entitlements, MyOrganisation } from '~/lib/licensing/seats'
import { addMembership, auditOf, client, createMember, createTenant, createUser, expectProblem, signedInClient, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, organisation, patch } from '#tests/helpers/reporting-a'

/** docs/licensing.md: creating organisations, switching, the licence (operator only to change) and GET /api/entitlements/me. Through HTTP. */

let t: TestBackend
const OPERATOR = `operator-${randomUUID().slice(0, 8)}@ops.example.com`

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-20T09:00:00.000Z', env: { PLATFORM_OPERATOR_EMAILS: ` ${OPERATOR.toUpperCase()} , someone@else.example.com` } })
})

afterAll(async () => {
  await t?.close()
})

afterEach(() => {
  t.now.reset()
})

function withKey(c: TestClient, path: string, json: unknown, key: string, method = 'POST') {
  return c.request(path, { method, json, headers: { 'Idempotency-Key': key } })
}

/** The operator: a verified account of its own, a member of an organisation of its own. */
let operator: ReturnType<typeof signedInClient> | undefined
function operatorClient() {
  operator ??= createMember(t.db, { email: OPERATOR, roleKey: 'read-only' }).then((member) => signedInClient(t, member))
  return operator
}

test('POST /api/tenants makes an organisation with the caller as administrator and the free licence; switch moves the session there', async () => {
  const { admin, tenant } = await organisation(t)
  const made = await body<CreatedOrganisation>(await admin.c.post('/api/tenants', { name: '  Harbour Works Ltd ' }), 201)
  expect(made).toMatchObject({ name: 'Harbour Works Ltd', roleKey: 'admin' })
  expect(made.slug).toMatch(/^harbour-works-ltd-[0-9a-f]{6}$/)

  const mine = await body<{ items: MyOrganisation[] }>(await admin.c.get('/api/tenants'))
  expect(mine.items.map((o) => [o.id, o.roleKey, o.status, o.isCurrent])).toEqual(
    expect.arrayContaining([
      [tenant.id, 'admin', 'active', true],
      [made.id, 'admin', 'active', false],
    ]),
  )
  // Still in the first organisation until the person switches.
  expect((await body<{ tenantId: string }>(await admin.c.get('/auth/session'))).tenantId).toBe(tenant.id)
  const switched = await body<{ tenantId: string; tenantName: string; roles: string[] }>(await admin.c.post(`/api/tenants/${made.id}/switch`))
  expect(switched).toMatchObject({ tenantId: made.id, tenantName: 'Harbour Works Ltd' })
  expect((await body<{ tenantId: string }>(await admin.c.get('/auth/session'))).tenantId).toBe(made.id)

  const licence = await body<Licence>(await admin.c.get(`/api/tenants/${made.id}/license`))
  expect(licence).toMatchObject({ tenantId: made.id, plan: 'free', planName: 'Free', seats: 10, status: 'active', source: 'default', validUntilUtc: null })
  const me = await body<Entitlements>(await admin.c.get('/api/entitlements/me'))
  expect(me).toMatchObject({ tenantId: made.id, plan: 'free', lapsed: false, seats: { total: 10, used: 1, reserved: 0, free: 9 }, isAdmin: true })
  expect((await auditOf(t.db, { action: 'licensing.organisation.created', tenantId: made.id }))[0]).toMatchObject({ actorUserId: admin.user.id, data: { name: 'Harbour Works Ltd', slug: made.slug } })

  // Switching back, and to an organisation one is not in: 404; a bad id: 404.
  await body(await admin.c.post(`/api/tenants/${tenant.id}/switch`))
  const stranger = await organisation(t)
  await expectProblem(await admin.c.post(`/api/tenants/${stranger.tenant.id}/switch`), 404, 'KR_NOT_FOUND')
  await expectProblem(await admin.c.post('/api/tenants/not-an-id/switch'), 404, 'KR_NOT_FOUND')
})

test('POST /api/tenants: a chosen slug, a taken slug 409 with a field error, bad input 400, signed out 401', async () => {
  const { writer } = await organisation(t)
  const slug = `crane-${randomUUID().slice(0, 8)}`
  expect((await body<CreatedOrganisation>(await writer.c.post('/api/tenants', { name: 'Crane Hire', slug: slug.toUpperCase() }), 201)).slug).toBe(slug)
  const taken = await expectProblem(await writer.c.post('/api/tenants', { name: 'Other', slug }), 409, 'KR_SLUG_TAKEN')
  expect(taken.errors?.slug).toBeDefined()
  const bad = await expectProblem(await writer.c.post('/api/tenants', { name: 'x', slug: '-nope-' }), 400, 'KR_VALIDATION')
  expect(Object.keys(bad.errors ?? {}).sort()).toEqual(['name', 'slug'])
  await expectProblem(await writer.c.post('/api/tenants', { slug: 'fine-slug' }), 400, 'KR_VALIDATION')
  await expectProblem(await client(t).post('/api/tenants', { name: 'Anonymous' }), 401, 'KR_UNAUTHENTICATED')
})

test('POST /api/tenants is idempotent: a replay answers the same organisation, another body 422, a running one 409', async () => {
  const { admin } = await organisation(t)
  const key = randomUUID()
  const first = await body<CreatedOrganisation>(await withKey(admin.c, '/api/tenants', { name: 'Scaffold Co' }, key), 201)
  const replay = await withKey(admin.c, '/api/tenants', { name: 'Scaffold Co' }, key)
  expect(replay.headers.get('idempotent-replayed')).toBe('true')
  expect(await body<CreatedOrganisation>(replay, 201)).toEqual(first)
  expect((await body<{ items: MyOrganisation[] }>(await admin.c.get('/api/tenants'))).items.filter((o) => o.name === 'Scaffold Co')).toHaveLength(1)
  await expectProblem(await withKey(admin.c, '/api/tenants', { name: 'Another Co' }, key), 422, 'KR_IDEMPOTENCY_KEY_REUSED')

  const running = randomUUID()
  const text = JSON.stringify({ name: 'Running Co' })
  await t.db.insert(idempotencyKeys).values({
    key: running,
    principal: admin.user.id,
    route: 'POST /api/tenants',
    requestHash: createHash('sha256').update(text).digest('base64url'),
    state: 'running',
    // A claim made now by the test's clock: one made long before would be taken over as abandoned.
    createdAt: t.now(),
    expiresAt: new Date(t.now().getTime() + 60 * 60_000),
  })
  await expectProblem(await admin.c.request('/api/tenants', { method: 'POST', body: text, headers: { 'Idempotency-Key': running, 'content-type': 'application/json' } }), 409, 'KR_IDEMPOTENCY_IN_PROGRESS')
})

test('the licence: admins read their own organisation’s; another organisation’s id 404; a member 403; only a platform operator changes it', async () => {
  const { admin, writer, tenant } = await organisation(t)
  const other = await organisation(t)
  const path = `/api/tenants/${tenant.id}/license`
  expect(await body<Licence>(await admin.c.get(path))).toMatchObject({ plan: 'free', seats: 10, source: 'default' })
  await expectProblem(await writer.c.get(path), 403, 'KR_FORBIDDEN')
  await expectProblem(await other.admin.c.get(path), 404, 'KR_NOT_FOUND')
  await expectProblem(await admin.c.get('/api/tenants/not-a-uuid/license'), 404)

  // The organisation's own administrator may not change it: billing does (or an operator).
  await expectProblem(await patch(admin.c, path, { seats: 50 }), 403, 'KR_OPERATOR_ONLY')
  await expectProblem(await patch(writer.c, path, { seats: 50 }), 403, 'KR_OPERATOR_ONLY')
  // An address on the list that is not verified is no operator.
  const unverified = await signedInClient(t, { user: await createUser(t.db, { email: `unverified-${OPERATOR}`, verified: false }), tenant })
  await expectProblem(await patch(unverified, path, { seats: 50 }), 403, 'KR_OPERATOR_ONLY')

  const operator = await operatorClient()
  const validUntil = '2027-11-20T09:00:00.000Z'
  const changed = await body<Licence>(await patch(operator, path, { plan: 'business', seats: 25, validUntilUtc: validUntil }))
  expect(changed).toMatchObject({ plan: 'business', planName: 'Business', seats: 25, validUntilUtc: validUntil, status: 'active', source: 'operator' })
  expect(await body<Licence>(await admin.c.get(path))).toEqual(changed)
  // The operator reads any organisation's licence too.
  expect(await body<Licence>(await operator.get(path))).toEqual(changed)
  const audit = await auditOf(t.db, { action: 'licensing.licence.changed', tenantId: tenant.id })
  expect(audit[0]).toMatchObject({ data: { source: 'operator', from: { plan: 'free', seats: 10 }, to: { plan: 'business', seats: 25 } } })
  expect(await withTenant(t.db, tenant.id, (tx) => hasFeature(tx, tenant.id, 'identity-provider-sign-in', t.now()))).toBe(true)

  const bad = await expectProblem(await patch(operator, path, { seats: 0, plan: 'gold', status: 'sleeping', extra: 1 }), 400, 'KR_VALIDATION')
  expect(Object.keys(bad.errors ?? {})).toEqual(expect.arrayContaining(['seats', 'plan', 'status']))
  await expectProblem(await patch(operator, path, {}), 400, 'KR_VALIDATION')
  await expectProblem(await patch(operator, `/api/tenants/${randomUUID()}/license`, { seats: 5 }), 404, 'KR_NOT_FOUND')
  await expectProblem(await patch(operator, '/api/tenants/nope/license', { seats: 5 }), 404, 'KR_NOT_FOUND')
})

test('an operator’s change of a licence changed since it was read is refused: by billing (nobody named) or by an operator; nothing is saved', async () => {
  const { tenant } = await organisation(t)
  const path = `/api/tenants/${tenant.id}/license`
  const op = await operatorClient()
  const opened = await body<Licence>(await op.get(path))

  // Billing changes it meanwhile (a checkout's event): the operator's form is stale.
  await withTenant(t.db, tenant.id, (tx) => applyLicence(tx, tenant.id, { plan: 'team', seats: 12, validUntil: null, status: 'active', source: 'checkout' }, t.now()))
  const byBilling = (await expectProblem(await patch(op, path, { seats: 40, expectedRevision: opened.revision }), 409, 'KR_EDIT_CONFLICT')) as unknown as {
    changedBy: string | null
    currentRevision: number
    current: Licence
  }
  expect(byBilling.changedBy).toBeNull()
  expect(byBilling.current).toMatchObject({ plan: 'team', seats: 12, source: 'checkout' })
  expect(byBilling.currentRevision).toBeGreaterThan(opened.revision)
  expect(await body<Licence>(await op.get(path))).toMatchObject({ seats: 12, source: 'checkout' })

  // Saved against the revision the conflict named, it goes through; a second tab of the operator's, opened before, is refused naming them.
  const saved = await body<Licence>(await patch(op, path, { seats: 40, expectedRevision: byBilling.currentRevision }))
  expect(saved).toMatchObject({ seats: 40, source: 'operator' })
  expect(saved.revision).toBeGreaterThan(byBilling.currentRevision)
  const secondTab = (await expectProblem(await patch(op, path, { seats: 45, expectedRevision: byBilling.currentRevision }), 409, 'KR_EDIT_CONFLICT')) as unknown as { changedBy: string | null }
  expect(secondTab.changedBy).not.toBeNull()
  expect((await body<Licence>(await op.get(path))).seats).toBe(40)
})

test('entitlements: any member asks; a lapsed licence falls back to the free plan; features follow the plan in force', async () => {
  const { admin, reader, tenant } = await organisation(t)
  await withTenant(t.db, tenant.id, (tx) => applyLicence(tx, tenant.id, { plan: 'business', seats: 30, validUntil: new Date('2026-12-01T00:00:00Z'), status: 'active', source: 'operator' }, t.now()))
  const me = await body<Entitlements>(await reader.c.get('/api/entitlements/me'))
  expect(me).toMatchObject({
    tenantId: tenant.id,
    plan: 'business',
    planName: 'Business',
    licensedPlan: 'business',
    status: 'active',
    validUntilUtc: '2026-12-01T00:00:00.000Z',
    lapsed: false,
    seats: { total: 30, used: 3, reserved: 0, free: 27, enforced: true, nearLimit: false },
    features: { 'identity-provider-sign-in': true },
    isAdmin: false,
  })
  expect(me.limits.storageBytes).toBeGreaterThan(0)

  // Past validUntil: the free plan applies until it is renewed.
  t.now.set('2026-12-02T00:00:00Z')
  const lapsed = await body<Entitlements>(await (await signedInClient(t, admin)).get('/api/entitlements/me'))
  expect(lapsed).toMatchObject({ plan: 'free', licensedPlan: 'business', lapsed: true, seats: { total: 10, used: 3 }, features: { 'identity-provider-sign-in': false }, isAdmin: true })
  expect(await withTenant(t.db, tenant.id, (tx) => hasFeature(tx, tenant.id, 'identity-provider-sign-in', t.now()))).toBe(false)

  await expectProblem(await client(t).get('/api/entitlements/me'), 401, 'KR_UNAUTHENTICATED')
})

test('switching into an organisation whose membership is suspended is 403; one that enforces a second factor asks for a sign-in', async () => {
  const { admin } = await organisation(t)
  const elsewhere = await organisation(t)
  await addMembership(t.db, elsewhere.tenant.id, admin.user.id, { status: 'suspended', isDefault: false })
  await expectProblem(await admin.c.post(`/api/tenants/${elsewhere.tenant.id}/switch`), 403, 'KR_MEMBERSHIP_SUSPENDED')
  const strict = await createTenant(t.db, { mfaEnforced: true })
  await addMembership(t.db, strict.id, admin.user.id, { isDefault: false })
  await expectProblem(await admin.c.post(`/api/tenants/${strict.id}/switch`), 403, 'KR_MFA_REQUIRED_TO_SWITCH')
  expect((await body<{ items: MyOrganisation[] }>(await admin.c.get('/api/tenants'))).items.find((o) => o.id === elsewhere.tenant.id)?.status).toBe('suspended')
})

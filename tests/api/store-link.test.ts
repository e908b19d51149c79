import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { http } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import { idempotencyKeys } from '#server/db/schema'
import { licences } from '#server/db/schema-licensing'
import { storeLinkCodes, storeSubscriptions } from '#server/db/schema-store'
import { withTenant } from '#server/db/tenancy'
import { applyLicence } from '#server/domain/licensing/licence'
import type { LinkCode, StoreLinkResult, StoreOverview } from '~/lib/store/types'
import { auditOf, client, expectProblem, requestHashOf, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, organisation, signedMember } from '#tests/helpers/reporting-a'
import { APPLE_SANDBOX, createStoreStandIn, GOOGLE_API, GOOGLE_TOKEN_URI, TEST_PACKAGE_NAME } from '#tests/helpers/store-stand-in'

/** docs/store-subscriptions.md: link codes, linking through the App Store and Google Play (stood in by msw), re-checking. Through HTTP. */

const NOW = '2027-01-15T09:00:00.000Z'
const DAY = 86_400_000
const stores = createStoreStandIn()
const msw = setupServer(
  http.all(`${APPLE_SANDBOX}/*`, ({ request }) => stores.handle(request)),
  http.all(`${GOOGLE_API}/*`, ({ request }) => stores.handle(request)),
  http.post(GOOGLE_TOKEN_URI, ({ request }) => stores.handle(request)),
)

let t: TestBackend

beforeAll(async () => {
  msw.listen({ onUnhandledRequest: 'error' })
  t = await createTestBackend({ now: NOW, env: stores.env() })
})

afterAll(async () => {
  msw.close()
  await t?.close()
})

afterEach(() => {
  t.now.reset()
  stores.reset()
})

let serial = 2000000000
/** An App Store subscription the stand-in knows; its first transaction id is what the app reports. */
function appleSubscription(overrides: Partial<Parameters<typeof stores.apple.set>[1]> = {}) {
  serial += 10
  const original = String(serial)
  const s = { originalTransactionId: original, transactionIds: [original], productId: 'siteportal.team.10', expiresDate: Date.parse(NOW) + 30 * DAY, status: 1 as const, ...overrides }
  stores.apple.set(original, s)
  return s
}

function googleSubscription(overrides: Partial<Parameters<typeof stores.google.set>[1]> = {}) {
  const token = `gp-${randomUUID()}.AO-J1Oz`
  const s = { subscriptionState: 'SUBSCRIPTION_STATE_ACTIVE', productId: 'siteportal.business.25', expiryTime: new Date(Date.parse(NOW) + 30 * DAY).toISOString(), ...overrides }
  stores.google.set(token, s)
  return { token, ...s }
}

async function start(admin: TestClient): Promise<LinkCode> {
  return body<LinkCode>(await admin.post('/api/iap/link/start', {}), 201)
}

function completeApple(c: TestClient, code: string, transactionId: string, productId = 'siteportal.team.10', headers?: Record<string, string>) {
  return c.request('/api/iap/link/complete', { method: 'POST', json: { store: 'apple', code, productId, transactionId }, ...(headers && { headers }) })
}

function licenceOf(tenantId: string) {
  return withTenant(t.db, tenantId, (tx) => tx.select().from(licences).where(eq(licences.tenantId, tenantId)))
}

function subscriptionsOf(tenantId: string) {
  return withTenant(t.db, tenantId, (tx) => tx.select().from(storeSubscriptions).where(eq(storeSubscriptions.tenantId, tenantId)))
}

test('an admin starts a link: an 8-character grouped code, a link, 15 minutes; only its HMAC is stored; audited', async () => {
  const { admin, tenant } = await organisation(t)
  const code = await start(admin.c)
  expect(code.code).toMatch(/^[ACDEFGHJKMNPQRTWXY34679]{4}-[ACDEFGHJKMNPQRTWXY34679]{4}$/)
  expect(code.link).toBe(`${t.config.publicUrl}/settings/link?code=${code.code}`)
  expect(Date.parse(code.expiresAtUtc) - Date.parse(NOW)).toBe(15 * 60_000)
  const rows = await withTenant(t.db, tenant.id, (tx) => tx.select().from(storeLinkCodes).where(eq(storeLinkCodes.tenantId, tenant.id)))
  expect(rows).toHaveLength(1)
  expect(rows[0]?.codeHash).not.toContain(code.code.replace('-', ''))
  expect(await auditOf(t.db, { action: 'billing.store.link-started', tenantId: tenant.id })).toHaveLength(1)
  const overview = await body<StoreOverview>(await admin.c.get('/api/iap/subscriptions'))
  expect(overview).toEqual({ stores: { apple: true, google: true }, liveCodeExpiresAtUtc: code.expiresAtUtc, subscriptions: [] })
})

test('members who are not administrators cannot start a link or read the overview (403); signed out is 401', async () => {
  const { writer, reader } = await organisation(t)
  await expectProblem(await writer.c.post('/api/iap/link/start', {}), 403, 'KR_FORBIDDEN')
  await expectProblem(await reader.c.get('/api/iap/subscriptions'), 403, 'KR_FORBIDDEN')
  await expectProblem(await client(t).post('/api/iap/link/start', {}), 401)
  await expectProblem(await client(t).post('/api/iap/link/complete', { store: 'apple', code: 'K7QM-3TXA', productId: 'x', transactionId: '1' }), 401)
})

test('the buyer links an App Store subscription: the store is asked with our JWT, the licence follows the product and expiry', async () => {
  const { admin, writer, tenant } = await organisation(t)
  const code = await start(admin.c)
  const bought = appleSubscription()
  const result = await body<StoreLinkResult>(await completeApple(writer.c, code.code.toLowerCase().replace('-', ' '), bought.originalTransactionId))
  expect(result.subscription).toMatchObject({ store: 'apple', productId: 'siteportal.team.10', plan: 'team', seats: 10, state: 'active', licenceStatus: 'active', environment: 'Sandbox', autoRenew: true, isLicenceSource: true })
  expect(result.subscription.linkedBy).toEqual({ id: writer.user.id, displayName: writer.user.displayName })
  expect(result.subscription.expiresAtUtc).toBe(new Date(bought.expiresDate).toISOString())
  expect(result.licence).toMatchObject({ plan: 'team', seats: 10, status: 'active', source: 'store', validUntilUtc: new Date(bought.expiresDate).toISOString() })
  expect(result.licenceApplied).toBe(true)

  expect(stores.seen.map((r) => `${r.method} ${r.url}`)).toEqual([
    `GET ${APPLE_SANDBOX}/inApps/v1/transactions/${bought.originalTransactionId}`,
    `GET ${APPLE_SANDBOX}/inApps/v1/subscriptions/${bought.originalTransactionId}`,
  ])
  for (const request of stores.seen) expect(request.authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/)
  const [licence] = await licenceOf(tenant.id)
  expect(licence).toMatchObject({ plan: 'team', seats: 10, source: 'store', reference: `apple:${bought.originalTransactionId}` })
  expect(await auditOf(t.db, { action: 'billing.store.linked', tenantId: tenant.id })).toEqual([expect.objectContaining({ actorUserId: writer.user.id })])

  // The code worked once.
  await expectProblem(await completeApple(writer.c, code.code, bought.originalTransactionId), 409, 'KR_LINK_CODE_USED')
  const overview = await body<StoreOverview>(await admin.c.get('/api/iap/subscriptions'))
  expect(overview.liveCodeExpiresAtUtc).toBeNull()
  expect(overview.subscriptions.map((s) => s.id)).toEqual([result.subscription.id])
})

test('the buyer links a Google Play subscription: a service-account token first, then subscriptionsv2 with it', async () => {
  const { admin, reader, tenant } = await organisation(t)
  const code = await start(admin.c)
  const bought = googleSubscription()
  const result = await body<StoreLinkResult>(
    await reader.c.post('/api/iap/link/complete', { store: 'google', code: code.code, productId: 'siteportal.business.25', purchaseToken: bought.token, packageName: TEST_PACKAGE_NAME }),
  )
  expect(result.subscription).toMatchObject({ store: 'google', plan: 'business', seats: 25, state: 'active', environment: 'Test' })
  expect(result.licence).toMatchObject({ plan: 'business', seats: 25, status: 'active', source: 'store', validUntilUtc: bought.expiryTime })
  const [tokenRequest, apiRequest] = stores.seen
  expect(tokenRequest).toMatchObject({ method: 'POST', url: GOOGLE_TOKEN_URI, contentType: 'application/x-www-form-urlencoded' })
  expect(new URLSearchParams(tokenRequest?.body).get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer')
  expect(apiRequest).toMatchObject({
    method: 'GET',
    url: `${GOOGLE_API}/androidpublisher/v3/applications/${TEST_PACKAGE_NAME}/purchases/subscriptionsv2/tokens/${encodeURIComponent(bought.token)}`,
    authorization: 'Bearer ya29.test-1',
  })
  const [row] = await subscriptionsOf(tenant.id)
  expect(row?.subscriptionKey).toMatch(/^[0-9a-f]{64}$/)
})

test('bad, unknown, expired, replaced and foreign codes are refused before the store is asked', async () => {
  const { admin, writer } = await organisation(t)
  const other = await organisation(t)
  const bought = appleSubscription()
  const bad = await expectProblem(await completeApple(writer.c, 'K7QM-3TX', bought.originalTransactionId), 400, 'KR_VALIDATION')
  expect(bad.errors?.code).toBeDefined()
  await expectProblem(await completeApple(writer.c, 'K7QM-3TXA', bought.originalTransactionId), 422, 'KR_LINK_CODE_INVALID')
  const foreign = await start(other.admin.c)
  await expectProblem(await completeApple(writer.c, foreign.code, bought.originalTransactionId), 422, 'KR_LINK_CODE_INVALID')

  const first = await start(admin.c)
  const second = await start(admin.c)
  await expectProblem(await completeApple(writer.c, first.code, bought.originalTransactionId), 409, 'KR_LINK_CODE_USED')
  t.now.advance(15 * 60_000)
  await expectProblem(await completeApple(writer.c, second.code, bought.originalTransactionId), 422, 'KR_LINK_CODE_EXPIRED')
  expect(stores.seen).toEqual([])
})

test('a subscription linked to one organisation is refused to another; that one’s code and licence stay as they were', async () => {
  const first = await organisation(t)
  const second = await organisation(t)
  const bought = appleSubscription()
  await body(await completeApple(first.writer.c, (await start(first.admin.c)).code, bought.originalTransactionId))
  const code = await start(second.admin.c)
  await expectProblem(await completeApple(second.writer.c, code.code, bought.originalTransactionId), 409, 'KR_STORE_SUBSCRIPTION_LINKED_ELSEWHERE')
  expect(await licenceOf(second.tenant.id)).toEqual([])
  expect(await subscriptionsOf(second.tenant.id)).toEqual([])
  expect((await body<StoreOverview>(await second.admin.c.get('/api/iap/subscriptions'))).liveCodeExpiresAtUtc).toBe(code.expiresAtUtc)
  // Linking it again in its own organisation is fine: the same row is updated.
  await body(await completeApple(first.writer.c, (await start(first.admin.c)).code, bought.originalTransactionId))
  expect(await subscriptionsOf(first.tenant.id)).toHaveLength(1)
})

test('products and purchases that do not fit are refused: unknown product, another product, another package, unknown purchase', async () => {
  const { admin, writer } = await organisation(t)
  const code = (await start(admin.c)).code
  const bought = appleSubscription()
  await expectProblem(await completeApple(writer.c, code, bought.originalTransactionId, 'siteportal.unknown'), 422, 'KR_STORE_PRODUCT_UNKNOWN')
  const mismatch = await expectProblem(await completeApple(writer.c, code, bought.originalTransactionId, 'siteportal.business.25'), 422, 'KR_STORE_PURCHASE_MISMATCH')
  expect(mismatch.errors?.productId).toBeDefined()
  await expectProblem(await completeApple(writer.c, code, '999999999'), 422, 'KR_STORE_PURCHASE_NOT_FOUND')
  const google = googleSubscription()
  const wrongPackage = { store: 'google', code, productId: 'siteportal.business.25', purchaseToken: google.token, packageName: 'com.example.other' }
  await expectProblem(await writer.c.post('/api/iap/link/complete', wrongPackage), 422, 'KR_STORE_PURCHASE_MISMATCH')
  // Nothing was used up.
  await body(await completeApple(writer.c, code, bought.originalTransactionId))
})

test('a store that is down, slow, unreachable or answers garbage gives a clear 503/502 and changes nothing', async () => {
  const { admin, writer, tenant } = await organisation(t)
  const code = (await start(admin.c)).code
  const bought = appleSubscription()
  for (const [mode, status, problemCode] of [
    ['down', 503, 'KR_STORE_UNAVAILABLE'],
    ['timeout', 503, 'KR_STORE_UNAVAILABLE'],
    ['network', 503, 'KR_STORE_UNAVAILABLE'],
    ['garbage', 502, 'KR_STORE_BAD_RESPONSE'],
  ] as const) {
    stores.mode.apple = mode
    const problem = await expectProblem(await completeApple(writer.c, code, bought.originalTransactionId), status, problemCode)
    expect(problem.detail).toContain('Nothing was changed')
    if (status === 503) expect(problem.retryAfterSeconds).toBeGreaterThan(0)
  }
  expect(await subscriptionsOf(tenant.id)).toEqual([])
  expect(await licenceOf(tenant.id)).toEqual([])
  stores.mode.apple = 'ok'
  await body(await completeApple(writer.c, code, bought.originalTransactionId))
})

test('verify re-checks with the store: renewed, then refunded; an expired purchase links as expired', async () => {
  const { admin, writer, tenant } = await organisation(t)
  const bought = appleSubscription()
  const linked = await body<StoreLinkResult>(await completeApple(writer.c, (await start(admin.c)).code, bought.originalTransactionId))

  const renewedUntil = bought.expiresDate + 30 * DAY
  stores.apple.set(bought.originalTransactionId, { ...bought, transactionIds: [...bought.transactionIds, String(Number(bought.originalTransactionId) + 1)], expiresDate: renewedUntil })
  t.now.advance(10 * 60_000)
  const renewed = await body<StoreLinkResult>(await admin.c.post('/api/iap/verify', { subscriptionId: linked.subscription.id }))
  expect(renewed.subscription).toMatchObject({ state: 'active', expiresAtUtc: new Date(renewedUntil).toISOString(), lastVerifiedAtUtc: t.now().toISOString() })
  expect(renewed.licence).toMatchObject({ status: 'active', validUntilUtc: new Date(renewedUntil).toISOString() })
  expect(stores.seen.at(-1)?.url).toBe(`${APPLE_SANDBOX}/inApps/v1/subscriptions/${bought.originalTransactionId}`)

  stores.apple.set(bought.originalTransactionId, { ...bought, status: 5, revocationDate: t.now().getTime() })
  const refunded = await body<StoreLinkResult>(await writer.c.post('/api/iap/verify', { subscriptionId: linked.subscription.id }))
  expect(refunded.subscription).toMatchObject({ state: 'refunded', licenceStatus: 'cancelled' })
  expect(refunded.licence).toMatchObject({ status: 'cancelled', source: 'store' })
  expect(await auditOf(t.db, { action: 'billing.store.verified', tenantId: tenant.id })).toHaveLength(2)

  const other = await organisation(t)
  const lapsed = appleSubscription({ status: 2, expiresDate: Date.parse(NOW) - DAY, autoRenewStatus: 0 })
  const result = await body<StoreLinkResult>(await completeApple(other.writer.c, (await start(other.admin.c)).code, lapsed.originalTransactionId))
  expect(result.subscription.state).toBe('expired')
  expect(result.licence).toMatchObject({ status: 'expired', plan: 'team' })
})

test('verify of Google: expired by the store; a store outage on verify changes nothing', async () => {
  const { admin, writer } = await organisation(t)
  const bought = googleSubscription({ productId: 'siteportal.team.10' })
  const linked = await body<StoreLinkResult>(
    await writer.c.post('/api/iap/link/complete', { store: 'google', code: (await start(admin.c)).code, productId: 'siteportal.team.10', purchaseToken: bought.token, packageName: TEST_PACKAGE_NAME }),
  )
  stores.mode.google = 'down'
  await expectProblem(await admin.c.post('/api/iap/verify', { subscriptionId: linked.subscription.id }), 503, 'KR_STORE_UNAVAILABLE')
  stores.mode.google = 'ok'
  stores.google.set(bought.token, { ...bought, subscriptionState: 'SUBSCRIPTION_STATE_EXPIRED', autoRenewEnabled: false })
  const expired = await body<StoreLinkResult>(await admin.c.post('/api/iap/verify', { subscriptionId: linked.subscription.id }))
  expect(expired.subscription).toMatchObject({ state: 'expired', autoRenew: false })
  expect(expired.licence.status).toBe('expired')
})

test('verify leaves a licence that another billing event set since; only admins and the linker may verify; other organisations see 404', async () => {
  const { admin, writer, reader, tenant } = await organisation(t)
  const bought = appleSubscription()
  const linked = await body<StoreLinkResult>(await completeApple(writer.c, (await start(admin.c)).code, bought.originalTransactionId))
  await withTenant(t.db, tenant.id, (tx) => applyLicence(tx, tenant.id, { plan: 'business', seats: 40, validUntil: null, status: 'active', source: 'operator' }, t.now()))
  const checked = await body<StoreLinkResult>(await writer.c.post('/api/iap/verify', { subscriptionId: linked.subscription.id }))
  expect(checked.licenceApplied).toBe(false)
  expect(checked.subscription.isLicenceSource).toBe(false)
  expect(checked.licence).toMatchObject({ plan: 'business', seats: 40, source: 'operator' })

  await expectProblem(await reader.c.post('/api/iap/verify', { subscriptionId: linked.subscription.id }), 403, 'KR_FORBIDDEN')
  const stranger = await organisation(t)
  await expectProblem(await stranger.admin.c.post('/api/iap/verify', { subscriptionId: linked.subscription.id }), 404)
  await expectProblem(await admin.c.post('/api/iap/verify', { subscriptionId: randomUUID() }), 404)
  await expectProblem(await admin.c.post('/api/iap/verify', { subscriptionId: 'nope' }), 400, 'KR_VALIDATION')
  expect((await body<StoreOverview>(await stranger.admin.c.get('/api/iap/subscriptions'))).subscriptions).toEqual([])
})

test('idempotency: a replayed start answers the same code, a replayed complete asks the store once; another body 422; in flight 409', async () => {
  const { admin, writer } = await organisation(t)
  const key = randomUUID()
  const first = await admin.c.request('/api/iap/link/start', { method: 'POST', json: {}, headers: { 'idempotency-key': key } })
  const again = await admin.c.request('/api/iap/link/start', { method: 'POST', json: {}, headers: { 'idempotency-key': key } })
  expect(again.headers.get('idempotent-replayed')).toBe('true')
  const code = await body<LinkCode>(first, 201)
  expect(await body<LinkCode>(again, 201)).toEqual(code)
  await expectProblem(await admin.c.request('/api/iap/link/start', { method: 'POST', json: { other: true }, headers: { 'idempotency-key': key } }), 422, 'KR_IDEMPOTENCY_KEY_REUSED')

  const bought = appleSubscription()
  const completeKey = randomUUID()
  const linked = await body<StoreLinkResult>(await completeApple(writer.c, code.code, bought.originalTransactionId, undefined, { 'idempotency-key': completeKey }))
  const replay = await completeApple(writer.c, code.code, bought.originalTransactionId, undefined, { 'idempotency-key': completeKey })
  expect(await body<StoreLinkResult>(replay)).toEqual(linked)
  expect(stores.seen).toHaveLength(2)
  await expectProblem(await completeApple(writer.c, code.code, bought.originalTransactionId, 'siteportal.business.25', { 'idempotency-key': completeKey }), 422, 'KR_IDEMPOTENCY_KEY_REUSED')

  const running = randomUUID()
  const verifyBody = JSON.stringify({ subscriptionId: linked.subscription.id })
  await t.db.insert(idempotencyKeys).values({ key: running, principal: admin.user.id, route: 'POST /api/iap/verify', requestHash: requestHashOf(verifyBody), state: 'running', createdAt: t.now(), expiresAt: new Date(t.now().getTime() + DAY) })
  await expectProblem(
    await admin.c.request('/api/iap/verify', { method: 'POST', body: verifyBody, headers: { 'idempotency-key': running, 'content-type': 'application/json' } }),
    409,
    'KR_IDEMPOTENCY_IN_PROGRESS',
  )
  const rows = await withTenant(t.db, admin.tenant.id, (tx) => tx.select().from(storeLinkCodes).where(and(eq(storeLinkCodes.tenantId, admin.tenant.id))))
  expect(rows).toHaveLength(1)
})

test('a member of another organisation signed in there cannot use this organisation’s subscriptions; a second admin sees them', async () => {
  const { admin, writer, tenant } = await organisation(t)
  const bought = appleSubscription()
  await body(await completeApple(writer.c, (await start(admin.c)).code, bought.originalTransactionId))
  const secondAdmin = await signedMember(t, 'admin', tenant)
  const overview = await body<StoreOverview>(await secondAdmin.c.get('/api/iap/subscriptions'))
  expect(overview.subscriptions).toHaveLength(1)
  expect(overview.subscriptions[0]).toMatchObject({ store: 'apple', productId: 'siteportal.team.10', isLicenceSource: true })
})

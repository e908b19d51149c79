import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import { idempotencyKeys } from '#server/db/schema'
import { billingCheckouts, billingWebhookEvents } from '#server/db/schema-billing'
import { licences } from '#server/db/schema-licensing'
import { withTenant } from '#server/db/tenancy'
import { signPayload } from '#server/domain/billing/signature'
import type { BillingCheckout, BillingOverview, WebhookReceipt } from '~/lib/billing/types'
import { HEADERS } from '~/lib/constants'
import { auditOf, client, expectProblem, requestHashOf, show, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { changeLogOf, createOrg, type Org } from '#tests/helpers/reporting-b'

/**
 * docs/billing.md with the built-in test provider: starting a checkout (validation, admins only,
 * idempotency), the provider's signed webhook (good, forged, stale, replayed) as the only thing
 * that activates a licence, the test provider's page, and the cross-tenant matrix.
 */

const SECRET = 'test-provider-webhook-secret-0123456789'
const START = '2026-11-20T09:00:00.000Z'
let t: TestBackend
let org: Org

beforeAll(async () => {
  t = await createTestBackend({ now: START, env: { BILLING_PROVIDER: 'test', BILLING_TEST_WEBHOOK_SECRET: SECRET } })
  org = await createOrg(t)
})

afterAll(async () => {
  await t?.close()
})

afterEach(() => {
  t.now.reset()
})

function checkout(c: TestClient, body: unknown, key: string | null = randomUUID()): Promise<Response> {
  return c.post('/api/billing/checkout/session', body, key === null ? {} : { headers: { [HEADERS.idempotencyKey]: key } })
}

async function started(c: TestClient, plan: 'team' | 'business', seats: number): Promise<BillingCheckout> {
  const response = await checkout(c, { plan, seats })
  expect(response.status, await show(response)).toBe(201)
  return (await response.json()) as BillingCheckout
}

async function licenceOf(tenantId: string) {
  const [row] = await withTenant(t.db, tenantId, (tx) => tx.select().from(licences).where(eq(licences.tenantId, tenantId)))
  return row ?? null
}

async function checkoutRow(tenantId: string, id: string) {
  const [row] = await withTenant(t.db, tenantId, (tx) => tx.select().from(billingCheckouts).where(and(eq(billingCheckouts.tenantId, tenantId), eq(billingCheckouts.id, id))))
  if (!row) throw new Error('no checkout row')
  return row
}

/** The test provider's session id: the last path segment of the payment page's url. */
function sessionIdOf(c: BillingCheckout): string {
  const id = c.url?.split('/').pop()
  if (!id) throw new Error('no session id in the url')
  return id
}

/** A checkout.session.completed as the provider sends it, for a tenant and a session. */
function completedEvent(tenantId: string, sessionId: string, eventId = `evt_${randomUUID()}`, subscription = `sub_${randomUUID()}`) {
  return {
    id: eventId,
    object: 'event',
    type: 'checkout.session.completed',
    data: { object: { id: sessionId, object: 'checkout.session', client_reference_id: tenantId, metadata: { tenantId }, subscription, payment_status: 'paid' } },
  }
}

function deliver(event: unknown, options: { secret?: string; at?: Date; provider?: string; tamper?: (body: string) => string; signature?: string | null } = {}): Promise<Response> {
  const rawBody = JSON.stringify(event)
  const signature = options.signature === undefined ? signPayload(options.secret ?? SECRET, rawBody, options.at ?? t.now()) : options.signature
  const headers = new Headers({ 'content-type': 'application/json' })
  if (signature !== null) headers.set('stripe-signature', signature)
  return t.fetch(`/api/billing/webhooks/${options.provider ?? 'test'}`, { method: 'POST', headers, body: options.tamper ? options.tamper(rawBody) : rawBody })
}

async function receipt(response: Response): Promise<WebhookReceipt> {
  expect(response.status, await show(response)).toBe(200)
  return (await response.json()) as WebhookReceipt
}

test('an admin starts a checkout: an open checkout and the payment page, and nothing about the licence changes yet', async () => {
  const overview = (await (await org.admin.get('/api/billing/overview')).json()) as BillingOverview
  expect(overview).toMatchObject({ provider: 'test', licence: { plan: 'free', source: 'default' }, seatsInUse: 4 })

  const created = await started(org.admin, 'team', 12)

  expect(created).toMatchObject({ plan: 'team', seats: 12, status: 'open', completedAtUtc: null })
  expect(created.url).toMatch(/^http:\/\/portal\.test\/api\/billing\/test-provider\/checkout\/cs_test_/)
  expect(await licenceOf(org.tenant.id)).toBeNull()
  const row = await checkoutRow(org.tenant.id, created.id)
  expect(row).toMatchObject({ provider: 'test', createdBy: org.admin.member.user.id, status: 'open' })
  expect(row.providerSessionId).toBe(sessionIdOf(created))
  expect(await auditOf(t.db, { action: 'billing.checkout.started', tenantId: org.tenant.id })).toContainEqual(
    expect.objectContaining({ actorUserId: org.admin.member.user.id, data: { provider: 'test', plan: 'team', seats: 12 } }),
  )
  // Coming back to the success page is no proof of payment: the checkout stays open until the webhook.
  const read = (await (await org.admin.get(`/api/billing/checkout/session/${created.id}`)).json()) as BillingCheckout
  expect(read.status).toBe('open')
})

test('the plan and seats are checked: only paid plans, whole seats within the plan, never fewer than the seats in use', async () => {
  const cases: Array<[unknown, string]> = [
    [{ plan: 'free', seats: 10 }, 'plan'],
    [{ plan: 'gold', seats: 10 }, 'plan'],
    [{ plan: 'team', seats: 0 }, 'seats'],
    [{ plan: 'team', seats: 501 }, 'seats'],
    [{ plan: 'team', seats: 2.5 }, 'seats'],
    [{ plan: 'team', seats: '5' }, 'seats'],
    [{ plan: 'team' }, 'seats'],
  ]
  for (const [body, field] of cases) {
    const problem = await expectProblem(await checkout(org.admin, body), 400, 'KR_VALIDATION')
    expect(problem.errors?.[field], JSON.stringify(body)).toBeDefined()
  }
  // The organisation has four active members.
  const tooFew = await expectProblem(await checkout(org.admin, { plan: 'business', seats: 3 }), 400, 'KR_VALIDATION')
  expect(tooFew.errors?.seats).toEqual(['Choose at least 4 seats: 4 are in use.'])
  expect((await checkout(org.admin, { plan: 'business', seats: 4 })).status).toBe(201)
})

test('only administrators: a member is refused with 403, a signed-out caller with 401', async () => {
  await expectProblem(await checkout(org.writer, { plan: 'team', seats: 5 }), 403, 'KR_FORBIDDEN')
  await expectProblem(await org.reader.get('/api/billing/overview'), 403, 'KR_FORBIDDEN')
  await expectProblem(await checkout(client(t), { plan: 'team', seats: 5 }), 401)
})

test('idempotency: a replay answers the same checkout, another body with the key is 422, a retry in flight is 409', async () => {
  const key = randomUUID()
  const first = await checkout(org.admin, { plan: 'team', seats: 6 }, key)
  const again = await checkout(org.admin, { plan: 'team', seats: 6 }, key)
  expect(again.status).toBe(201)
  expect(again.headers.get('idempotent-replayed')).toBe('true')
  const [a, b] = [(await first.json()) as BillingCheckout, (await again.json()) as BillingCheckout]
  expect(b.id).toBe(a.id)
  expect(b.url).toBe(a.url)

  await expectProblem(await checkout(org.admin, { plan: 'team', seats: 7 }, key), 422, 'KR_IDEMPOTENCY_KEY_REUSED')

  const running = randomUUID()
  const body = JSON.stringify({ plan: 'team', seats: 8 })
  await t.db.insert(idempotencyKeys).values({
    key: running,
    principal: org.admin.member.user.id,
    route: 'POST /api/billing/checkout/session',
    requestHash: requestHashOf(body),
    state: 'running',
    // A claim made now by the test's clock: one made long before would be taken over as abandoned.
    createdAt: t.now(),
    expiresAt: new Date(t.now().getTime() + 24 * 60 * 60_000),
  })
  await expectProblem(await checkout(org.admin, { plan: 'team', seats: 8 }, running), 409, 'KR_IDEMPOTENCY_IN_PROGRESS')
})

test("the test provider's page shows the order; Pay sends the signed webhook and returns to the success page with the licence active", async () => {
  const created = await started(org.admin, 'team', 15)
  const page = await t.fetch(new URL(created.url ?? '').pathname)
  expect(page.status).toBe(200)
  expect(page.headers.get('content-security-policy')).toContain("default-src 'none'")
  const html = await page.text()
  expect(html).toContain('Test payment provider')
  expect(html).toMatch(/<dt>Seats<\/dt><dd>15<\/dd>/)
  expect(html).toContain('>Pay</button>')
  expect(html).not.toContain('<script')

  const pay = await t.fetch(`/api/billing/test-provider/checkout/${sessionIdOf(created)}/pay`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' })

  expect(pay.status, await show(pay)).toBe(303)
  expect(pay.headers.get('location')).toBe(`${t.config.publicUrl}/settings/billing/success?checkoutId=${created.id}`)
  expect(await licenceOf(org.tenant.id)).toMatchObject({ plan: 'team', seats: 15, status: 'active', source: 'checkout', validUntil: new Date('2026-12-20T09:00:00.000Z') })
  expect((await checkoutRow(org.tenant.id, created.id)).status).toBe('completed')
  const overview = (await (await org.admin.get('/api/billing/overview')).json()) as BillingOverview
  expect(overview.licence).toMatchObject({ plan: 'team', planName: 'Team', seats: 15, status: 'active', source: 'checkout' })
  expect(await auditOf(t.db, { action: 'billing.checkout.completed', tenantId: org.tenant.id })).toContainEqual(expect.objectContaining({ actorUserId: null }))
  expect((await changeLogOf(t, org.tenant.id)).at(-1)).toMatchObject({ entity: 'Organisation', entityId: org.tenant.id, changeType: 'Updated' })

  // Paying the same session again sends the same event: already processed, nothing changes.
  const again = await t.fetch(`/api/billing/test-provider/checkout/${sessionIdOf(created)}/pay`, { method: 'POST' })
  expect(again.status).toBe(303)
})

test("Cancel returns to the cancel page and changes nothing; an unknown, forged or expired session is refused", async () => {
  const other = await createOrg(t)
  const created = await started(other.admin, 'business', 5)
  const id = sessionIdOf(created)
  const cancel = await t.fetch(`/api/billing/test-provider/checkout/${id}/cancel`, { method: 'POST' })
  expect(cancel.status).toBe(303)
  expect(cancel.headers.get('location')).toMatch(new RegExp(`/settings/billing/cancel\\?checkoutId=${created.id}$`))
  expect(await licenceOf(other.tenant.id)).toBeNull()

  expect((await t.fetch('/api/billing/test-provider/checkout/cs_test_nothing.here')).status).toBe(404)
  const [body, mac] = id.slice('cs_test_'.length).split('.')
  const forged = `cs_test_${Buffer.from(Buffer.from(body ?? '', 'base64url').toString().replace('"s":5', '"s":500')).toString('base64url')}.${mac}`
  expect((await t.fetch(`/api/billing/test-provider/checkout/${forged}/pay`, { method: 'POST' })).status).toBe(404)
  t.now.advance(25 * 60 * 60_000)
  expect((await t.fetch(`/api/billing/test-provider/checkout/${id}/pay`, { method: 'POST' })).status).toBe(410)
  expect(await licenceOf(other.tenant.id)).toBeNull()
})

test('a webhook with a forged signature, a changed body or no signature answers 400 and changes nothing', async () => {
  const other = await createOrg(t)
  const created = await started(other.admin, 'team', 9)
  const event = completedEvent(other.tenant.id, sessionIdOf(created))

  await expectProblem(await deliver(event, { secret: 'not-the-secret-of-this-endpoint' }), 400, 'KR_WEBHOOK_SIGNATURE_INVALID')
  await expectProblem(await deliver(event, { tamper: (body) => body.replace('"paid"', '"paid" ') }), 400, 'KR_WEBHOOK_SIGNATURE_INVALID')
  await expectProblem(await deliver(event, { signature: null }), 400, 'KR_WEBHOOK_SIGNATURE_INVALID')
  await expectProblem(await deliver(event, { signature: 'v1=abc' }), 400, 'KR_WEBHOOK_SIGNATURE_INVALID')

  expect(await licenceOf(other.tenant.id)).toBeNull()
  expect((await checkoutRow(other.tenant.id, created.id)).status).toBe('open')
  const stored = await t.db.select().from(billingWebhookEvents).where(eq(billingWebhookEvents.eventId, event.id))
  expect(stored).toEqual([])
})

test('a webhook signed more than five minutes ago answers 400 KR_WEBHOOK_STALE; within the tolerance it is accepted', async () => {
  const other = await createOrg(t)
  const created = await started(other.admin, 'team', 9)
  const event = completedEvent(other.tenant.id, sessionIdOf(created))

  await expectProblem(await deliver(event, { at: new Date(t.now().getTime() - 6 * 60_000) }), 400, 'KR_WEBHOOK_STALE')
  await expectProblem(await deliver(event, { at: new Date(t.now().getTime() + 6 * 60_000) }), 400, 'KR_WEBHOOK_STALE')
  expect(await licenceOf(other.tenant.id)).toBeNull()

  expect(await receipt(await deliver(event, { at: new Date(t.now().getTime() - 4 * 60_000) }))).toEqual({ received: true, outcome: 'activated' })
  expect(await licenceOf(other.tenant.id)).toMatchObject({ plan: 'team', seats: 9 })
})

test('a replayed webhook answers 200 already-processed and changes nothing', async () => {
  const other = await createOrg(t)
  const created = await started(other.admin, 'business', 20)
  const event = completedEvent(other.tenant.id, sessionIdOf(created))
  expect((await receipt(await deliver(event))).outcome).toBe('activated')
  // An operator changes the licence afterwards; the replay must not undo it.
  await withTenant(t.db, other.tenant.id, (tx) => tx.update(licences).set({ seats: 30 }).where(eq(licences.tenantId, other.tenant.id)))
  t.now.advance(60_000)

  expect(await receipt(await deliver(event))).toEqual({ received: true, outcome: 'already-processed' })
  expect(await licenceOf(other.tenant.id)).toMatchObject({ plan: 'business', seats: 30 })
  // Another event id for a checkout already completed changes nothing either.
  expect((await receipt(await deliver(completedEvent(other.tenant.id, sessionIdOf(created))))).outcome).toBe('already-processed')
  expect(await licenceOf(other.tenant.id)).toMatchObject({ seats: 30 })
})

test("cross-tenant: a webhook naming one organisation and another's checkout changes neither; each checkout completes only in its own", async () => {
  const a = await createOrg(t)
  const b = await createOrg(t)
  const checkoutA = await started(a.admin, 'team', 5)
  const checkoutB = await started(b.admin, 'team', 7)

  expect((await receipt(await deliver(completedEvent(a.tenant.id, sessionIdOf(checkoutB))))).outcome).toBe('no-matching-checkout')
  expect(await licenceOf(a.tenant.id)).toBeNull()
  expect(await licenceOf(b.tenant.id)).toBeNull()
  expect((await checkoutRow(b.tenant.id, checkoutB.id)).status).toBe('open')

  expect((await receipt(await deliver(completedEvent(b.tenant.id, sessionIdOf(checkoutB))))).outcome).toBe('activated')
  expect(await licenceOf(b.tenant.id)).toMatchObject({ plan: 'team', seats: 7 })
  expect(await licenceOf(a.tenant.id)).toBeNull()
  expect((await checkoutRow(a.tenant.id, checkoutA.id)).status).toBe('open')

  // Another organisation's checkout id is not found; a made-up one neither.
  await expectProblem(await a.admin.get(`/api/billing/checkout/session/${checkoutB.id}`), 404)
  await expectProblem(await a.admin.get(`/api/billing/checkout/session/${randomUUID()}`), 404)
  await expectProblem(await a.admin.get('/api/billing/checkout/session/not-an-id'), 400)
  expect((await b.admin.get(`/api/billing/checkout/session/${checkoutB.id}`)).status).toBe(200)
})

test('subscription events change the licence only for the subscription it came from; unknown events and organisations are ignored', async () => {
  const other = await createOrg(t)
  const created = await started(other.admin, 'team', 5)
  await receipt(await deliver(completedEvent(other.tenant.id, sessionIdOf(created), undefined, 'sub_current')))
  const subscriptionEvent = (type: string, subscription: string, status: string) => ({
    id: `evt_${randomUUID()}`,
    type,
    data: { object: { id: subscription, object: 'subscription', status, metadata: { tenantId: other.tenant.id }, items: { data: [{ quantity: 8, current_period_end: 1_800_000_000 }] } } },
  })

  expect((await receipt(await deliver(subscriptionEvent('customer.subscription.updated', 'sub_old', 'active')))).outcome).toBe('no-matching-subscription')
  expect(await licenceOf(other.tenant.id)).toMatchObject({ seats: 5 })

  expect((await receipt(await deliver(subscriptionEvent('customer.subscription.updated', 'sub_current', 'past_due')))).outcome).toBe('updated')
  expect(await licenceOf(other.tenant.id)).toMatchObject({ plan: 'team', seats: 8, status: 'past_due', validUntil: new Date(1_800_000_000 * 1000) })

  expect((await receipt(await deliver(subscriptionEvent('customer.subscription.deleted', 'sub_current', 'canceled')))).outcome).toBe('updated')
  expect(await licenceOf(other.tenant.id)).toMatchObject({ status: 'cancelled' })

  expect((await receipt(await deliver({ id: `evt_${randomUUID()}`, type: 'customer.created', data: { object: {} } }))).outcome).toBe('ignored')
  expect((await receipt(await deliver(completedEvent(randomUUID(), 'cs_test_x')))).outcome).toBe('ignored')
  await expectProblem(await deliver({ not: 'an event' }), 400, 'KR_WEBHOOK_PAYLOAD_INVALID')
  await expectProblem(await deliver(completedEvent(other.tenant.id, 'cs_x'), { provider: 'stripe' }), 404)
})

import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import { billingCheckouts } from '#server/db/schema-billing'
import { licences } from '#server/db/schema-licensing'
import { withTenant } from '#server/db/tenancy'
import { signPayload } from '#server/domain/billing/signature'
import type { BillingCheckout, WebhookReceipt } from '~/lib/billing/types'
import { HEADERS } from '~/lib/constants'
import { expectProblem, show } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { createOrg, type Org } from '#tests/helpers/reporting-b'

/**
 * The Stripe provider (docs/billing.md) against Stripe's documented API, stood in by msw: the
 * create call's shape (form-encoded fields, Bearer key, Idempotency-Key), its answer
 * (https://docs.stripe.com/api/checkout/sessions/object), its errors, and Stripe-signed webhooks.
 */

const STRIPE = {
  STRIPE_SECRET_KEY: 'sk_test_51Portal0000000000000000',
  STRIPE_WEBHOOK_SECRET: 'whsec_portal0000000000000000000000',
  STRIPE_PRICE_TEAM: 'price_team_monthly',
  STRIPE_PRICE_BUSINESS: 'price_business_monthly',
}

type SeenRequest = { headers: Headers; form: URLSearchParams }
const seen: SeenRequest[] = []
let answer: (request: SeenRequest) => Response = sessionAnswer

const stripe = setupServer(
  http.post('https://api.stripe.com/v1/checkout/sessions', async ({ request }) => {
    const entry = { headers: request.headers, form: new URLSearchParams(await request.text()) }
    seen.push(entry)
    return answer(entry)
  }),
)

/** A checkout session as Stripe answers one (trimmed to documented fields). */
function sessionAnswer({ form }: SeenRequest): Response {
  const id = `cs_test_${randomUUID().replaceAll('-', '')}`
  return HttpResponse.json({
    id,
    object: 'checkout.session',
    mode: 'subscription',
    status: 'open',
    payment_status: 'unpaid',
    client_reference_id: form.get('client_reference_id'),
    customer_email: form.get('customer_email'),
    success_url: form.get('success_url'),
    cancel_url: form.get('cancel_url'),
    url: `https://checkout.stripe.com/c/pay/${id}`,
    expires_at: Math.floor(Date.parse('2026-11-21T09:00:00Z') / 1000),
    metadata: { tenantId: form.get('metadata[tenantId]') },
    livemode: false,
  })
}

let t: TestBackend
let org: Org

beforeAll(async () => {
  stripe.listen({ onUnhandledRequest: 'error' })
  t = await createTestBackend({ now: '2026-11-20T09:00:00.000Z', env: { BILLING_PROVIDER: 'stripe', ...STRIPE } })
  org = await createOrg(t)
})

afterAll(async () => {
  stripe.close()
  await t?.close()
})

afterEach(() => {
  answer = sessionAnswer
  seen.length = 0
})

function checkout(body: unknown, key = randomUUID()): Promise<Response> {
  return org.admin.post('/api/billing/checkout/session', body, { headers: { [HEADERS.idempotencyKey]: key } })
}

function deliver(event: unknown, secret = STRIPE.STRIPE_WEBHOOK_SECRET): Promise<Response> {
  const rawBody = JSON.stringify(event)
  return t.fetch('/api/billing/webhooks/stripe', { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signPayload(secret, rawBody, t.now()) }, body: rawBody })
}

async function licenceOf(tenantId: string) {
  const [row] = await withTenant(t.db, tenantId, (tx) => tx.select().from(licences).where(eq(licences.tenantId, tenantId)))
  return row ?? null
}

test('the checkout session is created as Stripe documents it: form-encoded subscription, seats as quantity, our organisation, the key and the idempotency header', async () => {
  const response = await checkout({ plan: 'business', seats: 25 })

  expect(response.status, await show(response)).toBe(201)
  const created = (await response.json()) as BillingCheckout
  expect(created.url).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/)
  expect(created.expiresAtUtc).toBe('2026-11-21T09:00:00.000Z')
  expect(seen).toHaveLength(1)
  const [request] = seen
  expect(request?.headers.get('authorization')).toBe(`Bearer ${STRIPE.STRIPE_SECRET_KEY}`)
  expect(request?.headers.get('content-type')).toBe('application/x-www-form-urlencoded')
  expect(request?.headers.get('idempotency-key')).toBe(`checkout-${created.id}`)
  expect(Object.fromEntries(request?.form ?? [])).toEqual({
    mode: 'subscription',
    'line_items[0][price]': 'price_business_monthly',
    'line_items[0][quantity]': '25',
    success_url: `${t.config.publicUrl}/settings/billing/success?checkoutId=${created.id}`,
    cancel_url: `${t.config.publicUrl}/settings/billing/cancel?checkoutId=${created.id}`,
    client_reference_id: org.tenant.id,
    customer_email: org.admin.member.user.email,
    'metadata[tenantId]': org.tenant.id,
    'metadata[checkoutId]': created.id,
    'metadata[plan]': 'business',
    'metadata[seats]': '25',
    'subscription_data[metadata][tenantId]': org.tenant.id,
    'subscription_data[metadata][checkoutId]': created.id,
    'subscription_data[metadata][plan]': 'business',
    'subscription_data[metadata][seats]': '25',
  })
})

test("Stripe's signed checkout.session.completed activates the licence; its subscription's later events keep it current", async () => {
  const created = (await (await checkout({ plan: 'team', seats: 10 })).json()) as BillingCheckout
  const [row] = await withTenant(t.db, org.tenant.id, (tx) =>
    tx.select().from(billingCheckouts).where(and(eq(billingCheckouts.tenantId, org.tenant.id), eq(billingCheckouts.id, created.id))),
  )
  const sessionId = row?.providerSessionId ?? ''
  const completed = {
    id: 'evt_1QStripeCompleted',
    object: 'event',
    api_version: '2025-03-31.basil',
    type: 'checkout.session.completed',
    data: { object: { id: sessionId, object: 'checkout.session', client_reference_id: org.tenant.id, metadata: { tenantId: org.tenant.id }, subscription: 'sub_1QStripe', payment_status: 'paid', status: 'complete' } },
  }
  await expectProblem(await deliver(completed, 'whsec_someone_else'), 400, 'KR_WEBHOOK_SIGNATURE_INVALID')
  expect(await licenceOf(org.tenant.id)).toBeNull()

  const accepted = await deliver(completed)
  expect(accepted.status, await show(accepted)).toBe(200)
  expect(((await accepted.json()) as WebhookReceipt).outcome).toBe('activated')
  expect(await licenceOf(org.tenant.id)).toMatchObject({ plan: 'team', seats: 10, status: 'active', source: 'checkout', reference: 'sub_1QStripe' })

  // A plan change made at Stripe (the price says which plan; newer API versions keep the period on the item).
  const updated = {
    id: 'evt_1QStripeUpdated',
    type: 'customer.subscription.updated',
    data: {
      object: {
        id: 'sub_1QStripe',
        object: 'subscription',
        status: 'active',
        metadata: { tenantId: org.tenant.id },
        items: { data: [{ price: { id: 'price_business_monthly' }, quantity: 14, current_period_end: 1_798_000_000 }] },
      },
    },
  }
  expect(((await (await deliver(updated)).json()) as WebhookReceipt).outcome).toBe('updated')
  expect(await licenceOf(org.tenant.id)).toMatchObject({ plan: 'business', seats: 14, validUntil: new Date(1_798_000_000 * 1000) })

  const failed = {
    id: 'evt_1QStripeFailed',
    type: 'invoice.payment_failed',
    data: { object: { id: 'in_1', object: 'invoice', parent: { subscription_details: { subscription: 'sub_1QStripe', metadata: { tenantId: org.tenant.id } } } } },
  }
  expect(((await (await deliver(failed)).json()) as WebhookReceipt).outcome).toBe('updated')
  expect(await licenceOf(org.tenant.id)).toMatchObject({ plan: 'business', seats: 14, status: 'past_due' })
  expect(((await (await deliver(failed)).json()) as WebhookReceipt).outcome).toBe('already-processed')
})

test('Stripe refusing the session answers 502 with its message, marks the checkout failed, and a retry runs again', async () => {
  answer = () => HttpResponse.json({ error: { type: 'invalid_request_error', code: 'resource_missing', message: "No such price: 'price_team_monthly'", param: 'line_items[0][price]' } }, { status: 400 })
  const key = randomUUID()
  const problem = await expectProblem(await checkout({ plan: 'team', seats: 5 }, key), 502, 'KR_BILLING_PROVIDER_FAILED')
  expect(problem.detail).toContain("No such price: 'price_team_monthly'")
  const rows = await withTenant(t.db, org.tenant.id, (tx) => tx.select({ status: billingCheckouts.status }).from(billingCheckouts).where(eq(billingCheckouts.status, 'failed')))
  expect(rows.length).toBeGreaterThan(0)

  answer = () => HttpResponse.error()
  await expectProblem(await checkout({ plan: 'team', seats: 5 }, key), 502, 'KR_BILLING_PROVIDER_FAILED')

  answer = sessionAnswer
  expect((await checkout({ plan: 'team', seats: 5 }, key)).status).toBe(201)
})

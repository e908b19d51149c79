import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { billingOverview, readCheckout, startCheckout } from '#server/domain/billing/checkout'
import { billingProvider } from '#server/domain/billing/providers'
import { receiveWebhook } from '#server/domain/billing/webhooks'
import { operation } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { idempotent } from '#server/http/idempotency'
import { Problem } from '#server/http/problem'
import { requireSession } from '#server/http/session'
import { BillingCheckoutSchema, BillingOverviewSchema, CheckoutBodySchema, WebhookReceiptSchema } from '~/lib/schemas/billing'
import { testProviderRoutes } from './test-provider'

const TAG = 'Billing'
const adminOnly = { 401: 'Not signed in.', 403: 'Not an administrator of this organisation.' }

const clock = (c: Context<BackendEnv>) => c.get('deps').now()

/**
 * Spec §7 "Billing": the web checkout and the payment provider's webhooks (issue 16,
 * docs/billing.md). A licence changes only through a verified webhook; the browser's return to
 * /settings/billing/success changes nothing.
 */
export const billingRoutes = new Hono<BackendEnv>()
  .get(
    '/api/billing/overview',
    operation({
      summary: "The organisation's licence, the seats in use and which payment provider (if any) takes payments",
      tag: TAG,
      access: 'admin',
      responses: { 200: { description: 'What the billing page shows.', schema: BillingOverviewSchema }, ...adminOnly },
    }),
    async (c) => {
      const deps = c.get('deps')
      return c.json(await billingOverview(deps.db, requireSession(c), clock(c), billingProvider(deps)))
    },
  )
  .post(
    '/api/billing/checkout/session',
    operation({
      summary: 'Start a web checkout for a plan and a number of seats; answers the payment page to send the browser to',
      description:
        'Creates a hosted checkout session at the payment provider (BILLING_PROVIDER) with an idempotency key. Nothing changes until the provider confirms the payment with a signed webhook.',
      tag: TAG,
      access: 'admin',
      body: CheckoutBodySchema,
      idempotent: true,
      responses: {
        201: { description: 'The checkout, open, with the url of the payment page.', schema: BillingCheckoutSchema },
        400: "The plan or seats are not valid (errors.seats: outside the plan's range, or fewer than the seats in use).",
        ...adminOnly,
        409: 'Online payment is not set up for this portal (KR_BILLING_NOT_CONFIGURED).',
        502: 'The payment provider refused or could not be reached (KR_BILLING_PROVIDER_FAILED); the checkout is marked failed.',
      },
    }),
    idempotent,
    async (c) => {
      const deps = c.get('deps')
      const order = c.req.valid('json')
      const meta = { ip: c.get('ip'), correlationId: c.get('correlationId'), publicUrl: deps.config.publicUrl }
      return c.json(await startCheckout(deps.db, requireSession(c), clock(c), billingProvider(deps), order, meta), 201)
    },
  )
  .get(
    '/api/billing/checkout/session/:checkoutId',
    operation({
      summary: 'A checkout of this organisation and where it stands (open, completed by the webhook, expired, cancelled, failed)',
      tag: TAG,
      access: 'admin',
      params: z.object({ checkoutId: z.uuid({ error: 'Not a checkout id.' }) }),
      responses: { 200: { description: 'The checkout.', schema: BillingCheckoutSchema }, ...adminOnly, 404: 'No such checkout in this organisation.' },
    }),
    async (c) => {
      const { db } = c.get('deps')
      return c.json(await readCheckout(db, requireSession(c), clock(c), c.req.valid('param').checkoutId))
    },
  )
  .post(
    '/api/billing/webhooks/:provider',
    operation({
      summary: "The payment provider's webhook: a signed event (Stripe-Signature) that completes a checkout or changes the subscription",
      description:
        'Public and without a CSRF token: the provider calls it. The raw body is verified (HMAC-SHA256, 5-minute tolerance) before anything is read; an event id already processed answers 200 with outcome already-processed and changes nothing.',
      tag: TAG,
      access: 'public',
      params: z.object({ provider: z.enum(['test', 'stripe'], { error: 'Not a payment provider of this portal.' }) }),
      responses: {
        200: { description: 'Received: `{ received: true, outcome }` (activated, updated, already-processed, ignored, …).', schema: WebhookReceiptSchema },
        400: 'Forged or changed (KR_WEBHOOK_SIGNATURE_INVALID), signed too long ago (KR_WEBHOOK_STALE), or not an event (KR_WEBHOOK_PAYLOAD_INVALID).',
        404: 'This provider is not the one configured.',
      },
    }),
    async (c) => {
      const deps = c.get('deps')
      const provider = billingProvider(deps)
      if (!provider || provider.name !== c.req.valid('param').provider) {
        throw new Problem({ status: 404, title: 'Not found', detail: 'Webhooks of this payment provider are not set up on this portal.', code: 'KR_NOT_FOUND' })
      }
      const rawBody = await c.req.text()
      return c.json(await receiveWebhook({ db: deps.db, now: deps.now, log: c.get('log') }, provider, rawBody, c.req.raw.headers, { correlationId: c.get('correlationId') }))
    },
  )
  .route('/', testProviderRoutes)

import { createHmac, timingSafeEqual } from 'node:crypto'
import { PLANS } from '~/lib/licensing/plans'
import type { BillingProvider, CheckoutRequest, CheckoutSession, PurchasablePlan } from './provider'
import { SIGNATURE_HEADER, signPayload, verifySignature } from './signature'
import { readStripeEvent } from './stripe-events'

/**
 * The built-in payment provider (BILLING_PROVIDER=test), for development and the browser tests:
 * it behaves like Stripe Checkout without leaving the portal. Its hosted page lives under
 * /api/billing/test-provider/checkout/{sessionId} (server/api/billing/test-provider.ts); "Pay"
 * sends a Stripe-shaped `checkout.session.completed` event, signed with its own secret in Stripe's
 * scheme, to our webhook endpoint and then returns to the success URL; "Cancel" returns to the
 * cancel URL. No money moves and nothing is stored on its side: a session id carries its own
 * details, signed, so the page cannot be pointed at another organisation or another return URL.
 */
export const TEST_SESSION_PREFIX = 'cs_test_'
/** Like Stripe's default: a checkout session can be paid for 24 hours. */
const SESSION_LIFETIME_MS = 24 * 60 * 60_000

export type TestSession = {
  id: string
  tenantId: string
  checkoutId: string
  plan: PurchasablePlan
  seats: number
  successUrl: string
  cancelUrl: string
  customerEmail: string | null
  expiresAt: Date
}

export type TestProvider = BillingProvider & {
  /** The session a page or button names, or why not. */
  readSession(id: string, now: Date): { ok: true; session: TestSession } | { ok: false; reason: 'unknown' | 'expired' }
  /** What "Pay" sends to the webhook endpoint: a signed checkout.session.completed. */
  paymentEvent(session: TestSession, now: Date): { rawBody: string; headers: Headers }
}

type Payload = { t: string; c: string; p: PurchasablePlan; s: number; ok: string; no: string; e: string | null; x: number }

export function testProvider(secret: string, publicUrl: string, clock: () => Date): TestProvider {
  const mac = (purpose: string, text: string) => createHmac('sha256', secret).update(`${purpose}:${text}`).digest('base64url')

  return {
    name: 'test',
    createCheckoutSession(request: CheckoutRequest): Promise<CheckoutSession> {
      const expiresAt = new Date(clock().getTime() + SESSION_LIFETIME_MS)
      const payload: Payload = { t: request.tenantId, c: request.checkoutId, p: request.plan, s: request.seats, ok: request.successUrl, no: request.cancelUrl, e: request.customerEmail, x: Math.floor(expiresAt.getTime() / 1000) }
      const body = Buffer.from(JSON.stringify(payload)).toString('base64url')
      const id = `${TEST_SESSION_PREFIX}${body}.${mac('session', body)}`
      return Promise.resolve({ id, url: `${publicUrl}/api/billing/test-provider/checkout/${id}`, expiresAt })
    },
    verifyWebhook(rawBody, headers, now) {
      const check = verifySignature(secret, rawBody, headers.get(SIGNATURE_HEADER), now)
      if (!check.ok) return check
      let payload: unknown = null
      try {
        payload = JSON.parse(rawBody)
      } catch {
        // reported below
      }
      const event = readStripeEvent(payload, () => null)
      return event ? { ok: true, event } : { ok: false, reason: 'payload', detail: 'The body is not a payment provider event.' }
    },
    readSession(id, now) {
      const session = decode(id)
      if (!session) return { ok: false, reason: 'unknown' }
      return session.expiresAt <= now ? { ok: false, reason: 'expired' } : { ok: true, session }
    },
    paymentEvent(session, now) {
      const created = Math.floor(now.getTime() / 1000)
      // Paying the same session twice sends the same event id: the second is a replay and changes nothing.
      const eventId = `evt_test_${mac('event', session.id).slice(0, 24)}`
      const metadata = { tenantId: session.tenantId, checkoutId: session.checkoutId, plan: session.plan, seats: String(session.seats) }
      const event = {
        id: eventId,
        object: 'event',
        type: 'checkout.session.completed',
        created,
        livemode: false,
        data: {
          object: {
            id: session.id,
            object: 'checkout.session',
            mode: 'subscription',
            status: 'complete',
            payment_status: 'paid',
            client_reference_id: session.tenantId,
            customer_email: session.customerEmail,
            amount_total: PLANS[session.plan].pricePerSeatMonthly * session.seats,
            currency: 'eur',
            subscription: `sub_test_${mac('subscription', session.id).slice(0, 24)}`,
            metadata,
          },
        },
      }
      const rawBody = JSON.stringify(event)
      return { rawBody, headers: new Headers({ 'content-type': 'application/json', [SIGNATURE_HEADER]: signPayload(secret, rawBody, now) }) }
    },
  }

  function decode(id: string): TestSession | null {
    if (!id.startsWith(TEST_SESSION_PREFIX) || id.length > 4096) return null
    const [body, signature, extra] = id.slice(TEST_SESSION_PREFIX.length).split('.')
    if (!body || !signature || extra !== undefined) return null
    const expected = Buffer.from(mac('session', body))
    const actual = Buffer.from(signature)
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null
    const p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload
    return { id, tenantId: p.t, checkoutId: p.c, plan: p.p, seats: p.s, successUrl: p.ok, cancelUrl: p.no, customerEmail: p.e, expiresAt: new Date(p.x * 1000) }
  }
}

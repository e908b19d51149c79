import type { PlanOfPrice } from './stripe-events'
import { readStripeEvent } from './stripe-events'
import { BillingProviderError, type BillingProvider, type CheckoutRequest, type CheckoutSession, type PurchasablePlan } from './provider'
import { SIGNATURE_HEADER, verifySignature } from './signature'

export const STRIPE_API = 'https://api.stripe.com'
/** A create that takes longer than this is given up (the admin can try again: the idempotency key makes it the same session). */
const REQUEST_TIMEOUT_MS = 15_000

export type StripeSettings = { secretKey: string; webhookSecret: string; prices: Record<PurchasablePlan, string> }

/**
 * Stripe Checkout through its HTTP API, without the SDK (https://docs.stripe.com/api/checkout/sessions/create):
 * a subscription-mode session with one line item (the plan's price, quantity = seats), our
 * organisation as client_reference_id and in the metadata of the session and of the subscription
 * it starts (so subscription and invoice events name the organisation too), and an Idempotency-Key.
 */
export function stripeProvider(settings: StripeSettings): BillingProvider {
  const planOfPrice: PlanOfPrice = (priceId) => (Object.entries(settings.prices).find(([, id]) => id === priceId)?.[0] as PurchasablePlan | undefined) ?? null
  return {
    name: 'stripe',
    createCheckoutSession: (request) => createSession(settings, request),
    verifyWebhook(rawBody, headers, now) {
      const check = verifySignature(settings.webhookSecret, rawBody, headers.get(SIGNATURE_HEADER), now)
      if (!check.ok) return check
      const event = readStripeEvent(parseJson(rawBody), planOfPrice)
      return event ? { ok: true, event } : { ok: false, reason: 'payload', detail: 'The body is not a Stripe event.' }
    },
  }
}

/** The form fields of the create call, in Stripe's bracket notation. */
export function checkoutForm(prices: Record<PurchasablePlan, string>, request: CheckoutRequest): URLSearchParams {
  const metadata = { tenantId: request.tenantId, checkoutId: request.checkoutId, plan: request.plan, seats: String(request.seats) }
  const form = new URLSearchParams({
    mode: 'subscription',
    'line_items[0][price]': prices[request.plan],
    'line_items[0][quantity]': String(request.seats),
    success_url: request.successUrl,
    cancel_url: request.cancelUrl,
    client_reference_id: request.tenantId,
  })
  if (request.customerEmail) form.set('customer_email', request.customerEmail)
  for (const [key, value] of Object.entries(metadata)) {
    form.set(`metadata[${key}]`, value)
    form.set(`subscription_data[metadata][${key}]`, value)
  }
  return form
}

async function createSession(settings: StripeSettings, request: CheckoutRequest): Promise<CheckoutSession> {
  let response: Response
  try {
    response = await fetch(`${STRIPE_API}/v1/checkout/sessions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${settings.secretKey}`,
        'content-type': 'application/x-www-form-urlencoded',
        'idempotency-key': request.idempotencyKey,
      },
      body: checkoutForm(settings.prices, request),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    })
  } catch (error) {
    throw new BillingProviderError(`Stripe could not be reached: ${error instanceof Error ? error.message : String(error)}`)
  }
  const body = parseJson(await response.text()) as { id?: unknown; url?: unknown; expires_at?: unknown; error?: { message?: unknown } } | null
  if (!response.ok) {
    const message = typeof body?.error?.message === 'string' ? body.error.message : null
    throw new BillingProviderError(`Stripe refused the checkout session (${response.status}).`, message)
  }
  if (typeof body?.id !== 'string' || typeof body.url !== 'string' || typeof body.expires_at !== 'number') {
    throw new BillingProviderError('Stripe answered without a session id, url or expiry.')
  }
  return { id: body.id, url: body.url, expiresAt: new Date(body.expires_at * 1000) }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return null
  }
}

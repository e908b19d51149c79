import type { PlanKey } from '~/lib/licensing/plans'

/**
 * A payment provider behind the web checkout (docs/billing.md). It follows how Stripe Checkout
 * works: the server creates a hosted checkout session (with an idempotency key), the browser is
 * sent to its page, and the outcome arrives as a signed webhook — the only thing that activates a
 * licence. Two implementations: `stripe` (stripe.ts) and the built-in `test` (test-provider.ts).
 */
export type BillingProvider = {
  name: BillingProviderName
  createCheckoutSession(request: CheckoutRequest): Promise<CheckoutSession>
  /** Checks the signature and timestamp of a webhook delivery and reads its event. Never throws. */
  verifyWebhook(rawBody: string, headers: Headers, now: Date): WebhookVerdict
}

export type BillingProviderName = 'test' | 'stripe'

export type PurchasablePlan = Exclude<PlanKey, 'free'>

export type CheckoutRequest = {
  tenantId: string
  /** Our checkout row: travels in the session's metadata and comes back in its events. */
  checkoutId: string
  plan: PurchasablePlan
  seats: number
  successUrl: string
  cancelUrl: string
  /** Sent to the provider so a retried create makes one session, not two. */
  idempotencyKey: string
  customerEmail: string | null
}

export type CheckoutSession = { id: string; url: string; expiresAt: Date }

/** Provider events, in our words. Everything we do not act on is `ignored`. */
export type BillingEvent =
  | { id: string; kind: 'checkout.completed'; providerType: string; tenantId: string | null; sessionId: string; subscription: string | null; paid: boolean; periodEnd: Date | null }
  | { id: string; kind: 'checkout.expired'; providerType: string; tenantId: string | null; sessionId: string }
  | {
      id: string
      kind: 'subscription.changed'
      providerType: string
      tenantId: string | null
      subscription: string
      status: SubscriptionStatus
      plan: PurchasablePlan | null
      seats: number | null
      periodEnd: Date | null
    }
  | { id: string; kind: 'payment.failed'; providerType: string; tenantId: string | null; subscription: string }
  | { id: string; kind: 'ignored'; providerType: string; tenantId: string | null }

/** A subscription's state, as our licence statuses say it. */
export type SubscriptionStatus = 'active' | 'trialing' | 'past_due' | 'cancelled' | 'expired'

export type WebhookVerdict =
  | { ok: true; event: BillingEvent }
  | { ok: false; reason: 'signature' | 'timestamp' | 'payload'; detail: string }

/** The provider refused or could not be reached: the checkout could not start. */
export class BillingProviderError extends Error {
  constructor(
    message: string,
    readonly providerMessage: string | null = null,
  ) {
    super(message)
  }
}

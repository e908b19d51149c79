import type { Licence } from '~/lib/licensing/plans'

/**
 * The web checkout's JSON shapes (issue 16, docs/billing.md), shared by the backend and the
 * billing pages. Their zod schemas are app/lib/schemas/billing.ts.
 */

export const PURCHASABLE_PLANS = ['team', 'business'] as const
export type PurchasablePlanKey = (typeof PURCHASABLE_PLANS)[number]

export const CHECKOUT_STATUSES = ['open', 'completed', 'expired', 'cancelled', 'failed'] as const
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number]

/** GET /api/billing/overview: what the billing page shows. */
export type BillingOverview = {
  /** Which provider takes payments; 'none' when online payment is not set up for this portal. */
  provider: 'none' | 'test' | 'stripe'
  licence: Licence
  /** Active members plus pending invites: a checkout may not buy fewer. */
  seatsInUse: number
}

/** POST /api/billing/checkout/session (201) and GET /api/billing/checkout/session/{checkoutId}. */
export type BillingCheckout = {
  id: string
  plan: PurchasablePlanKey
  seats: number
  status: CheckoutStatus
  /** The provider's payment page: where the browser goes next. */
  url: string | null
  expiresAtUtc: string | null
  completedAtUtc: string | null
  createdAtUtc: string
}

/** POST /api/billing/webhooks/{provider} (200). */
export type WebhookReceipt = { received: true; outcome: string }

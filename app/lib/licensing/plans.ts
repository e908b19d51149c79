/**
 * The plans an organisation can be on (issue 16; docs/licensing.md). Isomorphic: the billing page
 * shows them, the backend enforces them. A plan's features are what GET /api/entitlements/me
 * answers and what the product checks where a feature is paid.
 */

export const PLAN_KEYS = ['free', 'team', 'business'] as const
export type PlanKey = (typeof PLAN_KEYS)[number]

/** A paid capability the product checks (server/domain/licensing/entitlements.ts). */
export const FEATURE_KEYS = ['identity-provider-sign-in'] as const
export type FeatureKey = (typeof FEATURE_KEYS)[number]

export type Plan = {
  key: PlanKey
  name: string
  /** The seats an organisation on this plan has without buying any (free), or the fewest it can buy. */
  minSeats: number
  maxSeats: number
  /** Per seat and month, in the smallest unit of the currency (cents); 0 for free. */
  pricePerSeatMonthly: number
  features: readonly FeatureKey[]
}

export const PLANS: Record<PlanKey, Plan> = {
  free: { key: 'free', name: 'Free', minSeats: 10, maxSeats: 10, pricePerSeatMonthly: 0, features: [] },
  team: { key: 'team', name: 'Team', minSeats: 1, maxSeats: 500, pricePerSeatMonthly: 1200, features: [] },
  business: { key: 'business', name: 'Business', minSeats: 1, maxSeats: 5000, pricePerSeatMonthly: 2400, features: ['identity-provider-sign-in'] },
}

export const CURRENCY = 'EUR'

export const LICENCE_STATUSES = ['active', 'trialing', 'past_due', 'cancelled', 'expired'] as const
export type LicenceStatus = (typeof LICENCE_STATUSES)[number]

export const LICENCE_SOURCES = ['default', 'checkout', 'store', 'operator'] as const
export type LicenceSource = (typeof LICENCE_SOURCES)[number]

/** GET /api/tenants/{tenantId}/license. */
export type Licence = {
  tenantId: string
  plan: PlanKey
  planName: string
  seats: number
  validUntilUtc: string | null
  status: LicenceStatus
  source: LicenceSource
  updatedAtUtc: string | null
  /** Bumped by every change (0 before the first): an operator's change sends it back as expectedRevision. */
  revision: number
}

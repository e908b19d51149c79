import type { Licence, LicenceStatus, PlanKey } from '~/lib/licensing/plans'

/**
 * Linking a subscription bought in a mobile app store (issue 16, spec §2 /settings/link, §7
 * POST /api/iap/*; docs/store-subscriptions.md). The JSON shapes the backend answers and the
 * page shows. Isomorphic.
 */

export const STORE_KEYS = ['apple', 'google'] as const
export type StoreKey = (typeof STORE_KEYS)[number]

export const STORE_NAMES: Record<StoreKey, string> = { apple: 'App Store', google: 'Google Play' }

/** A link code works this long (docs/store-subscriptions.md "Link codes"). */
export const LINK_CODE_TTL_MS = 15 * 60_000
/** Unambiguous characters only: no 0/O, 1/I/L, 5/S, 2/Z, U/V, 8/B (what people misread or mistype). */
export const LINK_CODE_ALPHABET = 'ACDEFGHJKMNPQRTWXY34679'
export const LINK_CODE_LENGTH = 8

/** The store's state of a subscription, in our words (server/domain/store/store-facts.ts maps it to a licence). */
export const STORE_STATES = ['active', 'renewal-off', 'grace-period', 'billing-retry', 'on-hold', 'paused', 'expired', 'refunded', 'pending'] as const
export type StoreState = (typeof STORE_STATES)[number]

export const STORE_STATE_LABELS: Record<StoreState, string> = {
  active: 'Active, renews automatically',
  'renewal-off': 'Active, will not renew',
  'grace-period': 'Payment problem (grace period)',
  'billing-retry': 'Payment problem (store retrying)',
  'on-hold': 'On hold (payment failed)',
  paused: 'Paused',
  expired: 'Expired',
  refunded: 'Refunded or revoked',
  pending: 'Payment pending',
}

/** POST /api/iap/link/start: the code, shown grouped (K7QM-3TXA), and a link that carries it. */
export type LinkCode = { code: string; link: string; createdAtUtc: string; expiresAtUtc: string }

export type StoreSubscription = {
  id: string
  store: StoreKey
  productId: string
  plan: PlanKey
  seats: number
  environment: string
  state: StoreState
  licenceStatus: LicenceStatus
  expiresAtUtc: string | null
  autoRenew: boolean | null
  linkedAtUtc: string
  linkedBy: { id: string; displayName: string }
  lastVerifiedAtUtc: string
  /** Whether the organisation's licence currently comes from this subscription. */
  isLicenceSource: boolean
}

/** GET /api/iap/subscriptions: what /settings/link shows. */
export type StoreOverview = {
  stores: Record<StoreKey, boolean>
  /** When the newest unused code stops working, if one is still live. */
  liveCodeExpiresAtUtc: string | null
  subscriptions: StoreSubscription[]
}

/** POST /api/iap/link/complete and /api/iap/verify. */
export type StoreLinkResult = { subscription: StoreSubscription; licence: Licence; licenceApplied: boolean }

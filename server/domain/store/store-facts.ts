import type { LicenceStatus } from '~/lib/licensing/plans'
import type { StoreKey, StoreState } from '~/lib/store/types'

/**
 * What a store's verification API says about one subscription, in our words: both store clients
 * (apple.ts, google.ts) answer this, so linking and re-checking never care which store it was.
 */
export type StoreFacts = {
  store: StoreKey
  /** Names the subscription in its store, the same across renewals (unique across organisations). */
  subscriptionKey: string
  /** What the store's API is asked with next time. */
  storeReference: string
  productId: string
  environment: string
  state: StoreState
  expiresAt: Date | null
  autoRenew: boolean | null
  latestTransactionId: string | null
}

/** The proof of purchase the mobile app sends (spec §7 POST /api/iap/link/complete). */
export type StoreProof = { store: 'apple'; transactionId: string } | { store: 'google'; purchaseToken: string; packageName: string }

export interface StoreClient {
  /** Looks a purchase up by the app's proof, and checks it is a subscription to `productId` of our app. */
  lookUp(proof: StoreProof, productId: string, at: Date): Promise<StoreFacts>
  /** The subscription's state now, by the reference stored at linking. */
  recheck(storeReference: string, at: Date): Promise<StoreFacts>
}

/**
 * The licence status a store state gives (docs/store-subscriptions.md "States"): the organisation
 * keeps its plan while the store still grants access (renewal off, grace period, billing retry),
 * and loses it when the subscription expired or was refunded.
 */
export function licenceStatusOf(state: StoreState): LicenceStatus {
  switch (state) {
    case 'active':
    case 'renewal-off':
      return 'active'
    case 'grace-period':
    case 'billing-retry':
      return 'past_due'
    case 'refunded':
      return 'cancelled'
    case 'on-hold':
    case 'paused':
    case 'expired':
    case 'pending':
      return 'expired'
  }
}

/** Why a store call failed; server/domain/store/problems.ts turns each into a problem. */
export type StoreFailure =
  | { kind: 'unavailable'; detail: string; retryAfterSeconds?: number }
  | { kind: 'bad-response'; detail: string }
  | { kind: 'not-found'; detail: string }
  | { kind: 'mismatch'; detail: string; field?: string }

export class StoreError extends Error {
  readonly failure: StoreFailure
  constructor(failure: StoreFailure) {
    super(failure.detail)
    this.failure = failure
  }
}

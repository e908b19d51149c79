import type { FeatureKey, LicenceStatus, PlanKey } from './plans'

/**
 * Seats, entitlements and organisations as the API answers them (issue 16, docs/licensing.md).
 * Isomorphic: the backend builds them, the settings screens show them.
 */

/** How many seats an organisation has and how they are taken: every active member holds one, every pending invite reserves one. */
export type SeatCounts = {
  total: number
  used: number
  reserved: number
  /** total − used − reserved, never below 0 (a lapsed licence can leave more members than seats). */
  free: number
}

/** A seat: an active member of the organisation. Its id is the membership's. */
export type Seat = {
  id: string
  userId: string
  displayName: string
  email: string
  roleKey: string
  roleName: string
  status: 'active'
  sinceUtc: string
}

export type SeatPage = { items: Seat[]; nextCursor: string | null; seats: SeatCounts }

/** GET /api/entitlements/me. */
export type Entitlements = {
  tenantId: string
  /** The plan in force: the licence's, or free when the licence has lapsed. */
  plan: PlanKey
  planName: string
  /** The licence's own plan and status, whatever is in force. */
  licensedPlan: PlanKey
  status: LicenceStatus
  validUntilUtc: string | null
  /** True when the licence is cancelled, expired or past its validUntil: the free plan applies. */
  lapsed: boolean
  seats: SeatCounts & {
    /** The organisation's switch (Settings › Admin): false lets invites past the seat count. */
    enforced: boolean
    /** The organisation wants a warning when at most one seat is free, and one is due. */
    nearLimit: boolean
  }
  features: Record<FeatureKey, boolean>
  limits: { storageBytes: number; maxSeats: number }
  /** Whether the caller administers this organisation (the entitlements screen is theirs). */
  isAdmin: boolean
}

/** One of the caller's organisations (GET /api/tenants). */
export type MyOrganisation = {
  id: string
  name: string
  slug: string
  roleKey: string
  roleName: string
  status: 'active' | 'suspended' | 'invited'
  isCurrent: boolean
  isDefault: boolean
}

/** POST /api/tenants: the organisation made, with the caller as its administrator. */
export type CreatedOrganisation = {
  id: string
  name: string
  slug: string
  roleKey: 'admin'
  createdAtUtc: string
}

/** POST /api/seats/{seatId}/revoke. */
export type RevokeAnswer = { seatId: string; userId: string; status: 'revoked'; seats: SeatCounts }

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

/** The seats with the plan they come from and whether the limit is enforced (server/domain/licensing/seats.ts seatStanding). */
export type SeatStanding = SeatCounts & {
  /** The organisation's switch (Settings › Admin): false lets invites past the seat count. */
  enforced: boolean
  /** The organisation wants a warning when at most one seat is free, and one is due. */
  nearLimit: boolean
  /** The plan in force, and whether it is the free plan because the licence lapsed. */
  plan: PlanKey
  planName: string
  lapsed: boolean
}

function count(n: number, one: string, many: string, locale: string): string {
  return `${new Intl.NumberFormat(locale).format(n)} ${n === 1 ? one : many}`
}

/**
 * The same words wherever the seats are shown (control panel, Entitlements, Settings › Admin,
 * Billing): how many, how many used, on which plan, and whether the limit is enforced.
 */
export function seatStandingWords(s: SeatStanding, locale: string): { headline: string; detail: string; limit: string } {
  const n = (value: number) => new Intl.NumberFormat(locale).format(value)
  const plan = s.lapsed ? `the ${s.planName} plan (the licence has lapsed)` : `the ${s.planName} plan`
  return {
    headline: `${n(s.used)} of ${count(s.total, 'seat', 'seats', locale)} used`,
    detail: `${count(s.total, 'seat', 'seats', locale)} on ${plan}: ${n(s.used)} used, ${n(s.reserved)} reserved by invites, ${n(s.free)} free.`,
    limit: s.enforced
      ? 'The seat limit is enforced: invites stop when no seat is free.'
      : 'The seat limit is not enforced: invites beyond it go through with a warning.',
  }
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

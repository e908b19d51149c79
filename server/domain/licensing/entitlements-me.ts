import type { DomainContext } from '#server/domain/tenancy/context'
import type { Entitlements } from '~/lib/licensing/seats'
import { featuresOf, licenceInForce, storageBytesOf } from './entitlements'
import { seatStanding } from './seats'

/**
 * GET /api/entitlements/me (issue 16, docs/licensing.md "Entitlements"): what this person may use
 * in this organisation — the plan in force (free when the licence lapsed), its features and
 * limits, and the seats. Any member may ask; the seat list itself is for administrators.
 */
export async function entitlementsOf(ctx: DomainContext): Promise<Entitlements> {
  const tenantId = ctx.actor.tenantId
  const force = await licenceInForce(ctx.tx, tenantId, ctx.now)
  const standing = await seatStanding(ctx)
  const seats = { total: standing.total, used: standing.used, reserved: standing.reserved, free: standing.free, enforced: standing.enforced, nearLimit: standing.nearLimit }
  return {
    tenantId,
    plan: force.plan.key,
    planName: force.plan.name,
    licensedPlan: force.licence.plan,
    status: force.licence.status,
    validUntilUtc: force.licence.validUntilUtc,
    lapsed: force.lapsed,
    seats,
    features: featuresOf(force.plan),
    limits: { storageBytes: await storageBytesOf(ctx.tx, tenantId), maxSeats: force.plan.maxSeats },
    isAdmin: ctx.actor.roleKey === 'admin',
  }
}

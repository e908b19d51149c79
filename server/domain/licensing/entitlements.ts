import { eq } from 'drizzle-orm'
import type { Tx } from '#server/db/client'
import { tenants } from '#server/db/schema'
import { FEATURE_KEYS, PLANS, type FeatureKey, type Licence, type Plan } from '~/lib/licensing/plans'
import { readLicence } from './licence'

/**
 * What an organisation may use (issue 16, docs/licensing.md "Entitlements"): the plan in force and
 * its features. A licence that is cancelled, expired or past its validUntil has lapsed: the free
 * plan's entitlements apply (its seats and no paid feature) until billing or an operator renews
 * it. Members are never locked out by a lapse; only new seats and paid features stop.
 * Runs inside the organisation's transaction (withTenant).
 */

export type LicenceInForce = { licence: Licence; plan: Plan; lapsed: boolean; seats: number }

export function hasLapsed(licence: Pick<Licence, 'status' | 'validUntilUtc'>, now: Date): boolean {
  if (licence.status === 'cancelled' || licence.status === 'expired') return true
  return licence.validUntilUtc !== null && new Date(licence.validUntilUtc).getTime() <= now.getTime()
}

export function inForce(licence: Licence, now: Date): LicenceInForce {
  const lapsed = hasLapsed(licence, now)
  const plan = lapsed ? PLANS.free : PLANS[licence.plan]
  return { licence, plan, lapsed, seats: lapsed ? PLANS.free.minSeats : licence.seats }
}

export async function licenceInForce(tx: Tx, tenantId: string, now: Date): Promise<LicenceInForce> {
  return inForce(await readLicence(tx, tenantId), now)
}

export function featuresOf(plan: Plan): Record<FeatureKey, boolean> {
  return Object.fromEntries(FEATURE_KEYS.map((key) => [key, plan.features.includes(key)])) as Record<FeatureKey, boolean>
}

/**
 * Whether the organisation's plan in force includes a paid feature. The one check every paid
 * feature makes (identity-provider sign-in asks for 'identity-provider-sign-in').
 */
export async function hasFeature(tx: Tx, tenantId: string, key: FeatureKey, now: Date): Promise<boolean> {
  return (await licenceInForce(tx, tenantId, now)).plan.features.includes(key)
}

/** The organisation's storage allowance in bytes (tenants.storage_quota_bytes, issue 4). */
export async function storageBytesOf(tx: Tx, tenantId: string): Promise<number> {
  const [row] = await tx.select({ quota: tenants.storageQuotaBytes }).from(tenants).where(eq(tenants.id, tenantId)).limit(1)
  return row?.quota ?? 0
}

import { eq, sql } from 'drizzle-orm'
import type { Tx } from '#server/db/client'
import { licences } from '#server/db/schema-licensing'
import { PLANS, type Licence, type LicenceSource, type LicenceStatus, type PlanKey } from '~/lib/licensing/plans'

/**
 * An organisation's licence (issue 16): one row per organisation, or the free plan's default when
 * there is none. Only billing events (server/domain/billing, server/domain/store) and a platform
 * operator change it, always through applyLicence. Runs inside the organisation's transaction
 * (withTenant): row-level security keeps it to that organisation.
 */

export const DEFAULT_LICENCE = { plan: 'free', seats: PLANS.free.minSeats, validUntil: null, status: 'active', source: 'default' } as const

export type LicenceChange = {
  plan: PlanKey
  seats: number
  validUntil: Date | null
  status: LicenceStatus
  source: LicenceSource
  /** The provider's subscription or the store's transaction, when a billing event set it. */
  reference?: string | null
  /** The operator who changed it; billing and the stores are nobody (null). */
  by?: string | null
}

export async function readLicence(tx: Tx, tenantId: string): Promise<Licence> {
  const [row] = await tx.select().from(licences).where(eq(licences.tenantId, tenantId)).limit(1)
  if (!row) return present(tenantId, { ...DEFAULT_LICENCE, updatedAt: null, revision: 0 })
  return present(tenantId, {
    plan: row.plan as PlanKey,
    seats: row.seats,
    validUntil: row.validUntil,
    status: row.status as LicenceStatus,
    source: row.source as LicenceSource,
    updatedAt: row.updatedAt,
    revision: row.revision,
  })
}

/** Sets the organisation's licence (insert or update); answers it as read back. */
export async function applyLicence(tx: Tx, tenantId: string, change: LicenceChange, at: Date): Promise<Licence> {
  const values = { plan: change.plan, seats: change.seats, validUntil: change.validUntil, status: change.status, source: change.source, reference: change.reference ?? null, updatedBy: change.by ?? null, updatedAt: at }
  // Every change moves the revision, billing's and the stores' too: an operator's form opened before is stale (issue 36 §4).
  await tx
    .insert(licences)
    .values({ tenantId, ...values, revision: 1, createdAt: at })
    .onConflictDoUpdate({ target: licences.tenantId, set: { ...values, revision: sql`${licences.revision} + 1` } })
  return readLicence(tx, tenantId)
}

function present(
  tenantId: string,
  row: { plan: PlanKey; seats: number; validUntil: Date | null; status: LicenceStatus; source: LicenceSource; updatedAt: Date | null; revision: number },
): Licence {
  const plan = PLANS[row.plan] ?? PLANS.free
  return {
    tenantId,
    plan: plan.key,
    planName: plan.name,
    seats: row.seats,
    validUntilUtc: row.validUntil?.toISOString() ?? null,
    status: row.status,
    source: row.source,
    updatedAtUtc: row.updatedAt?.toISOString() ?? null,
    revision: row.revision,
  }
}

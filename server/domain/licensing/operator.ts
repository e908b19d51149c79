import { eq } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { tenants, users } from '#server/db/schema'
import { licences } from '#server/db/schema-licensing'
import { withTenant } from '#server/db/tenancy'
import { recordAuditIn } from '#server/domain/audit'
import { isUuid } from '~/lib/schemas/uuid'
import { Problem, problems } from '#server/http/problem'
import { editConflict } from '#server/domain/tenancy/edit-conflict'
import type { Licence } from '~/lib/licensing/plans'
import type { LicencePatch } from '~/lib/schemas/licensing'
import { applyLicence, readLicence } from './licence'

/**
 * The platform operator (issue 16, docs/licensing.md "Platform operator"): the people who run the
 * instance, named by PLATFORM_OPERATOR_EMAILS. Beside billing events, they alone change a licence
 * — any organisation's, through applyLicence with source 'operator', audited in that organisation.
 * An address counts only once verified, so registering with an operator's address grants nothing.
 */

export async function isPlatformOperator(db: Database, operatorEmails: readonly string[], userId: string): Promise<boolean> {
  if (operatorEmails.length === 0) return false
  const [user] = await db.select({ email: users.email, verifiedAt: users.emailVerifiedAt, status: users.status }).from(users).where(eq(users.id, userId)).limit(1)
  return Boolean(user && user.verifiedAt && user.status === 'active' && operatorEmails.includes(user.email.trim().toLowerCase()))
}

export function onlyOperators(): Problem {
  return new Problem({
    ...problems.forbidden('Only a platform operator can change a licence. Buy or change seats in Settings › Billing.', 'KR_OPERATOR_ONLY'),
    remediation: 'Change the plan or seats in Settings › Billing, or ask the portal’s operator.',
  })
}

const noSuchOrganisation = () => new Problem(problems.notFound('There is no such organisation.'))

async function ensureOrganisation(db: Database, tenantId: string): Promise<void> {
  if (!isUuid(tenantId)) throw noSuchOrganisation()
  const [tenant] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId)).limit(1)
  if (!tenant) throw noSuchOrganisation()
}

/** An operator reads any organisation's licence. */
export async function operatorReadLicence(db: Database, tenantId: string): Promise<Licence> {
  await ensureOrganisation(db, tenantId)
  return withTenant(db, tenantId, (tx) => readLicence(tx, tenantId))
}

/** PATCH /api/tenants/{tenantId}/license: the fields sent change, the rest stay. */
export async function operatorChangeLicence(
  db: Database,
  tenantId: string,
  patch: LicencePatch,
  actor: { userId: string; ip: string; correlationId: string },
  now: Date,
): Promise<Licence> {
  await ensureOrganisation(db, tenantId)
  return withTenant(db, tenantId, async (tx) => {
    // Locked: a billing event or another operator waits until this change is made or refused.
    const [row] = await tx
      .select({ reference: licences.reference, revision: licences.revision, updatedBy: licences.updatedBy })
      .from(licences)
      .where(eq(licences.tenantId, tenantId))
      .limit(1)
      .for('update')
    const before = await readLicence(tx, tenantId)
    if (patch.expectedRevision !== undefined && patch.expectedRevision !== before.revision) {
      const [by] = row?.updatedBy ? await tx.select({ displayName: users.displayName }).from(users).where(eq(users.id, row.updatedBy)).limit(1) : []
      throw editConflict('licence', { changedBy: by?.displayName ?? null, current: before, currentRevision: before.revision, yourRevision: patch.expectedRevision })
    }
    // The billing reference (a subscription's id) stays: the provider's next event must still find it.
    const change = {
      plan: patch.plan ?? before.plan,
      seats: patch.seats ?? before.seats,
      validUntil: patch.validUntilUtc === undefined ? (before.validUntilUtc ? new Date(before.validUntilUtc) : null) : patch.validUntilUtc === null ? null : new Date(patch.validUntilUtc),
      status: patch.status ?? before.status,
      source: 'operator' as const,
      reference: row?.reference ?? null,
      by: actor.userId,
    }
    const after = await applyLicence(tx, tenantId, change, now)
    await recordAuditIn(tx, {
      tenantId,
      actorUserId: actor.userId,
      action: 'licensing.licence.changed',
      targetType: 'Licence',
      targetId: tenantId,
      ip: actor.ip,
      correlationId: actor.correlationId,
      data: { source: 'operator', from: { plan: before.plan, seats: before.seats, validUntilUtc: before.validUntilUtc, status: before.status }, to: { plan: after.plan, seats: after.seats, validUntilUtc: after.validUntilUtc, status: after.status } },
      at: now,
    })
    return after
  })
}

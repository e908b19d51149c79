import { eq } from 'drizzle-orm'
import type { Tx } from '#server/db/client'
import { tenants } from '#server/db/schema'
import { retentionPolicies } from '#server/db/schema-admin'
import { putRetentionPolicy, RETENTION_DEFAULTS } from '#server/domain/config/retention'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { ConfigCategory } from '~/lib/admin/config'

/**
 * Fields whose one source of truth is another table, not admin_config.values: the MFA policy and
 * the storage quota are columns of the organisation (tenants.mfa_enforced, storage_quota_bytes,
 * which sign-in and the quota check read), and retention is the policy row /admin/retention edits
 * too (retention_policies). Reading a category overlays these; saving one writes them. Versions
 * still keep a full copy, so a rollback restores them too.
 */

const MIB = 1024 * 1024

/** What the server's environment says, for the read-only realtime category. */
export type InstanceFacts = { redisUrl?: string | undefined }

type Meta = { ip: string; correlationId: string }

/** The values of the category's fields that live elsewhere, and whether that source was ever set. */
export async function loadBacked(tx: Tx, tenantId: string, category: ConfigCategory, instance: InstanceFacts): Promise<{ values: Record<string, unknown>; configured: boolean }> {
  switch (category) {
    case 'security': {
      const [row] = await tx.select({ mfaEnforced: tenants.mfaEnforced }).from(tenants).where(eq(tenants.id, tenantId)).limit(1)
      return { values: { mfaPolicy: row?.mfaEnforced ? 'required' : 'optional' }, configured: false }
    }
    case 'storage': {
      const [row] = await tx.select({ quota: tenants.storageQuotaBytes }).from(tenants).where(eq(tenants.id, tenantId)).limit(1)
      return { values: row ? { quotaMb: Math.max(1, Math.round(row.quota / MIB)) } : {}, configured: false }
    }
    case 'retention': {
      const [row] = await tx
        .select({ enabled: retentionPolicies.enabled, archiveAfterDays: retentionPolicies.archiveAfterDays, purgeAfterDays: retentionPolicies.purgeAfterDays })
        .from(retentionPolicies)
        .where(eq(retentionPolicies.tenantId, tenantId))
        .limit(1)
      return { values: { ...RETENTION_DEFAULTS, ...row }, configured: row !== undefined }
    }
    case 'realtime':
      return { values: { backplane: instance.redisUrl ? 'redis' : 'memory' }, configured: instance.redisUrl !== undefined }
    default:
      return { values: {}, configured: false }
  }
}

/** Writes the fields that live elsewhere, where they changed (`before` is what `loadBacked` read). */
export async function applyBacked(ctx: DomainContext, category: ConfigCategory, before: Record<string, unknown>, after: Record<string, unknown>, meta: Meta): Promise<void> {
  const tenantId = ctx.actor.tenantId
  switch (category) {
    case 'security':
      if (after.mfaPolicy !== before.mfaPolicy) {
        await ctx.tx
          .update(tenants)
          .set({ mfaEnforced: after.mfaPolicy === 'required', updatedAt: ctx.now })
          .where(eq(tenants.id, tenantId))
      }
      return
    case 'storage':
      // Only a changed figure is written: a quota that is not a whole number of MB stays exact.
      if (after.quotaMb !== before.quotaMb && typeof after.quotaMb === 'number') {
        await ctx.tx
          .update(tenants)
          .set({ storageQuotaBytes: after.quotaMb * MIB, updatedAt: ctx.now })
          .where(eq(tenants.id, tenantId))
      }
      return
    case 'retention': {
      const policy = { enabled: after.enabled === true, archiveAfterDays: Number(after.archiveAfterDays), purgeAfterDays: Number(after.purgeAfterDays) }
      if (policy.enabled !== before.enabled || policy.archiveAfterDays !== before.archiveAfterDays || policy.purgeAfterDays !== before.purgeAfterDays) {
        await putRetentionPolicy(ctx, policy, meta)
      }
      return
    }
    default:
      return
  }
}

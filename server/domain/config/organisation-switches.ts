import { eq } from 'drizzle-orm'
import { tenants } from '#server/db/schema'
import { recordAuditIn } from '#server/domain/audit'
import type { DomainContext, RequestMeta } from '#server/domain/tenancy/context'
import { recordChange } from '#server/domain/tenancy/change-log'
import { bumpListRevision, listRevision, refuseStaleWrite } from '#server/domain/tenancy/edit-conflict'
import { type AdminSettings, DIAGNOSTICS_DEFAULTS, type DiagnosticsSettings, LICENSING_DEFAULTS, type LicensingSettings } from '~/lib/settings/settings'

/**
 * Organisation-wide defaults of /settings/admin (issue 14, docs/settings.md "Admin"): the
 * licensing and diagnostics switches, kept in tenants.org_settings as { licensing, diagnostics }.
 * A switch never saved has its default. Callers run as an administrator (asAdmin).
 */

export type AdminSettingsPatch = { licensing?: Partial<LicensingSettings> | undefined; diagnostics?: Partial<DiagnosticsSettings> | undefined }

function withDefaults<T extends Record<string, boolean>>(defaults: T, saved: unknown): T {
  const out = { ...defaults }
  if (saved && typeof saved === 'object') {
    for (const key of Object.keys(defaults) as (keyof T)[]) {
      const value = (saved as Record<string, unknown>)[key as string]
      if (typeof value === 'boolean') out[key] = value as T[keyof T]
    }
  }
  return out
}

async function stored(ctx: DomainContext, lock = false): Promise<Record<string, unknown>> {
  const query = ctx.tx.select({ orgSettings: tenants.orgSettings }).from(tenants).where(eq(tenants.id, ctx.actor.tenantId))
  const [row] = lock ? await query.for('update') : await query
  return row?.orgSettings ?? {}
}

/** GET /api/settings/admin. */
export async function getAdminSettings(ctx: DomainContext): Promise<AdminSettings> {
  const saved = await stored(ctx)
  const { revision } = await listRevision(ctx, 'organisation-switches', ctx.actor.tenantId)
  return { licensing: withDefaults(LICENSING_DEFAULTS, saved.licensing), diagnostics: withDefaults(DIAGNOSTICS_DEFAULTS, saved.diagnostics), revision }
}

/**
 * PATCH /api/settings/admin, /licensing and /diagnostics: only the switches sent change; audited
 * with each change. One revision counts the changes of all three: a patch against an older one is
 * refused (409 KR_EDIT_CONFLICT with the switches as they are now).
 */
export async function patchAdminSettings(ctx: DomainContext, patch: AdminSettingsPatch, meta: RequestMeta, expectedRevision?: number): Promise<AdminSettings> {
  const saved = await stored(ctx, true)
  const version = await listRevision(ctx, 'organisation-switches', ctx.actor.tenantId, { lock: true })
  const before = { licensing: withDefaults(LICENSING_DEFAULTS, saved.licensing), diagnostics: withDefaults(DIAGNOSTICS_DEFAULTS, saved.diagnostics), revision: version.revision }
  await refuseStaleWrite(ctx, { ...version, what: 'organisation settings' }, expectedRevision, async () => before)
  const after: AdminSettings = { licensing: { ...before.licensing, ...defined(patch.licensing) }, diagnostics: { ...before.diagnostics, ...defined(patch.diagnostics) }, revision: before.revision }
  const changes: Record<string, { from: boolean; to: boolean }> = {}
  for (const group of ['licensing', 'diagnostics'] as const) {
    for (const [key, value] of Object.entries(after[group])) {
      const was = (before[group] as Record<string, boolean>)[key]
      if (was !== value) changes[`${group}.${key}`] = { from: Boolean(was), to: value }
    }
  }
  if (Object.keys(changes).length === 0) return before
  await ctx.tx
    .update(tenants)
    .set({ orgSettings: { ...saved, licensing: after.licensing, diagnostics: after.diagnostics }, updatedAt: ctx.now })
    .where(eq(tenants.id, ctx.actor.tenantId))
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'settings.admin.changed',
    targetType: 'Organisation',
    targetId: ctx.actor.tenantId,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data: changes,
    at: ctx.now,
  })
  await recordChange(ctx, 'Organisation', ctx.actor.tenantId, 'Updated')
  return { ...after, revision: await bumpListRevision(ctx, 'organisation-switches', ctx.actor.tenantId) }
}

function defined<T extends Record<string, unknown>>(patch: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(patch ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>
}

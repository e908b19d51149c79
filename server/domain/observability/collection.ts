import { eq } from 'drizzle-orm'
import type { Tx } from '#server/db/client'
import { tenants } from '#server/db/schema'
import { effectiveValuesIn, effectiveValuesOf } from '#server/domain/config/effective'
import type { MemberFacts } from '#server/domain/tenancy/request-scope'
import { DIAGNOSTICS_DEFAULTS, type DiagnosticsSettings } from '~/lib/settings/settings'
import type { TelemetryCollection } from '~/lib/telemetry-settings'

/**
 * What an organisation lets browsers collect (issue 15): usage telemetry when Configuration ›
 * Telemetry is on AND Settings › Admin allows usage telemetry, for `samplingPercent` of visitors;
 * frontend errors when Settings › Admin allows them; the person named on both only when
 * "identify users in reports" is on (the ingest stores no user id otherwise).
 */

/** The diagnostics switches of Settings › Admin, each with its default (server/domain/settings/organisation.ts keeps them). */
export async function diagnosticsSwitchesIn(tx: Tx, tenantId: string): Promise<DiagnosticsSettings> {
  const [row] = await tx.select({ orgSettings: tenants.orgSettings }).from(tenants).where(eq(tenants.id, tenantId)).limit(1)
  return diagnosticsSwitchesOf(row?.orgSettings)
}

function diagnosticsSwitchesOf(orgSettings: Record<string, unknown> | undefined): DiagnosticsSettings {
  const saved = orgSettings?.diagnostics
  const out = { ...DIAGNOSTICS_DEFAULTS }
  if (saved && typeof saved === 'object') {
    for (const key of Object.keys(out) as (keyof DiagnosticsSettings)[]) {
      const value = (saved as Record<string, unknown>)[key]
      if (typeof value === 'boolean') out[key] = value
    }
  }
  return out
}

/**
 * The organisation's collection settings, read in its tenant transaction; in a page's shared reads
 * from what that transaction read as it began (the organisation's settings and its telemetry
 * configuration row: server/domain/tenancy/context.ts), with no statement of its own.
 */
export async function collectionSettingsIn(tx: Tx, tenantId: string, known?: MemberFacts): Promise<TelemetryCollection> {
  const switches = known ? diagnosticsSwitchesOf(known.orgSettings) : await diagnosticsSwitchesIn(tx, tenantId)
  const config = known ? effectiveValuesOf('telemetry', known.telemetryConfig) : await effectiveValuesIn(tx, tenantId, 'telemetry')
  const enabled = config.values.enabled === true
  const sampling = typeof config.values.samplingPercent === 'number' ? config.values.samplingPercent : 0
  return { usage: enabled && switches.collectUsageTelemetry, samplingPercent: Math.max(0, Math.min(100, sampling)), errors: switches.collectFrontendErrors }
}

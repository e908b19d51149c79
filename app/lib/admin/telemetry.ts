import type { z } from 'zod'
import type { TelemetryEventListSchema, TelemetryEventRowSchema } from '~/lib/schemas/admin-telemetry'

/** Administration › Telemetry (issue 15): the API's shapes and the page's filters in the URL. */

export type TelemetryEventRow = z.output<typeof TelemetryEventRowSchema>
export type TelemetryEventList = z.output<typeof TelemetryEventListSchema>

type IngestCounts = { accepted: number; dropped: { invalid: number; rateLimited: number; tooLarge: number } }
export type IngestDay = { day: string; events: IngestCounts; errors: IngestCounts }
/** GET /api/admin/telemetry/stats (server/domain/observability/stats.ts). */
export type IngestStats = { fromDay: string; toDay: string; organisation: IngestDay[]; untenanted: IngestDay[] }

export const TELEMETRY_FILTER_NAMES = ['name', 'since', 'visitor'] as const
export type TelemetryFilterName = (typeof TELEMETRY_FILTER_NAMES)[number]
export type TelemetryFilters = Record<TelemetryFilterName, string>

export function telemetryFiltersOf(params: URLSearchParams): TelemetryFilters {
  return Object.fromEntries(TELEMETRY_FILTER_NAMES.map((name) => [name, (params.get(name) ?? '').trim()])) as TelemetryFilters
}

export function telemetryQuery(filters: Partial<TelemetryFilters>, extra: Record<string, string> = {}): URLSearchParams {
  const query = new URLSearchParams()
  for (const name of TELEMETRY_FILTER_NAMES) {
    const value = filters[name]
    if (value) query.set(name, value)
  }
  for (const [name, value] of Object.entries(extra)) query.set(name, value)
  return query
}

export function hasTelemetryFilters(filters: TelemetryFilters): boolean {
  return TELEMETRY_FILTER_NAMES.some((name) => filters[name] !== '')
}

/** All dropped of a day, whatever the reason. */
export function droppedOf(counts: IngestCounts): number {
  return counts.dropped.invalid + counts.dropped.rateLimited + counts.dropped.tooLarge
}

/** An event's properties as one short line: `status=failed · failures=2`. */
export function propertiesLine(properties: Record<string, unknown>): string {
  return Object.entries(properties)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' · ')
}

import { gte, sql } from 'drizzle-orm'
import type { Database, Tx } from '#server/db/client'
import { telemetryIngestCounts } from '#server/db/schema-observability'
import type { DomainContext } from '#server/domain/tenancy/context'
import { z } from 'zod'
import { inScope, utcDay, type IngestKind } from './ingest'

/**
 * Spec §7 "Telemetry ingest stats": per UTC day of the last STATS_DAYS (today included), events
 * and errors accepted and dropped by reason; the caller's organisation, and apart from it what
 * arrived without any organisation (signed out, or the public fall-back), which every
 * administrator may see as counts only.
 */
export const STATS_DAYS = 14
const DAY_MS = 24 * 60 * 60_000

const Counts = z.object({
  accepted: z.number().int(),
  dropped: z.object({ invalid: z.number().int(), rateLimited: z.number().int(), tooLarge: z.number().int() }),
})
const StatsDay = z.object({ day: z.string().describe('YYYY-MM-DD, UTC.'), events: Counts, errors: Counts })
export const IngestStatsSchema = z.object({
  fromDay: z.string(),
  toDay: z.string(),
  organisation: z.array(StatsDay).describe('The caller’s organisation, oldest day first, every day present.'),
  untenanted: z.array(StatsDay).describe('What arrived without an organisation, the same way.'),
})
export type IngestStats = z.output<typeof IngestStatsSchema>
type StatsDay = z.output<typeof StatsDay>
type Counts = z.output<typeof Counts>

type Row = { day: string; kind: string; outcome: string; count: number }

function firstDay(now: Date): string {
  return utcDay(new Date(now.getTime() - (STATS_DAYS - 1) * DAY_MS))
}

/** The counters visible in the transaction (row-level security picks the organisation or none). */
async function countersFrom(tx: Tx, from: string): Promise<Row[]> {
  const t = telemetryIngestCounts
  return tx
    .select({ day: t.day, kind: t.kind, outcome: t.outcome, count: sql<number>`sum(${t.count})`.mapWith(Number) })
    .from(t)
    .where(gte(t.day, from))
    .groupBy(t.day, t.kind, t.outcome)
}

const empty = (): Counts => ({ accepted: 0, dropped: { invalid: 0, rateLimited: 0, tooLarge: 0 } })

function series(rows: Row[], now: Date): StatsDay[] {
  const days: StatsDay[] = []
  for (let i = STATS_DAYS - 1; i >= 0; i--) days.push({ day: utcDay(new Date(now.getTime() - i * DAY_MS)), events: empty(), errors: empty() })
  const byDay = new Map(days.map((d) => [d.day, d]))
  for (const row of rows) {
    const day = byDay.get(row.day)
    if (!day || (row.kind !== 'events' && row.kind !== 'errors')) continue
    const counts = day[row.kind as IngestKind]
    if (row.outcome === 'accepted') counts.accepted += row.count
    else if (row.outcome === 'invalid') counts.dropped.invalid += row.count
    else if (row.outcome === 'rate-limited') counts.dropped.rateLimited += row.count
    else if (row.outcome === 'too-large') counts.dropped.tooLarge += row.count
  }
  return days
}

/** The organisation's days, read in the administrator's tenant transaction. */
export async function organisationIngestStats(ctx: DomainContext): Promise<StatsDay[]> {
  return series(await countersFrom(ctx.tx, firstDay(ctx.now)), ctx.now)
}

/** The untenanted days, read outside every tenant (the only place those rows are visible). */
export async function untenantedIngestStats(db: Database, now: Date): Promise<StatsDay[]> {
  return series(await inScope(db, null, (tx) => countersFrom(tx, firstDay(now))), now)
}

export function ingestStats(organisation: StatsDay[], untenanted: StatsDay[], now: Date): IngestStats {
  return { fromDay: firstDay(now), toDay: utcDay(now), organisation, untenanted }
}

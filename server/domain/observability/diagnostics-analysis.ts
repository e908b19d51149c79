import { sql, type SQL } from 'drizzle-orm'
import type { Tx } from '#server/db/client'
import { diagnosticAttempts as a, diagnosticChecks as c } from '#server/db/schema-observability'
import { rowsOf } from '#server/db/tenancy'
import {
  DIAGNOSTIC_CHECKS,
  type AnalysisBucket,
  type AnalysisPoint,
  type AnalysisSeries,
  type AnalysisSummary,
  type AnalysisSummaryRow,
  type DiagnosticCheck,
  type RunScope,
} from '~/lib/admin/diagnostics'
import type { Scoped } from './diagnostics-queries'

/**
 * The diagnostics analysis (docs/observability.md "Diagnostics"): per check over a window, how
 * often it was tried and failed and how long it took (percentiles in SQL, the same on PGlite and
 * PostgreSQL), and the same per hour or day for the charts. Skipped attempts count as attempts
 * but not in the failure rate or the latencies: nothing was measured.
 */

const HOUR_MS = 60 * 60_000

export type Window = { from: Date; to: Date }

export function windowOf(now: Date, hours: number): Window {
  return { from: new Date(now.getTime() - hours * HOUR_MS), to: now }
}

function scopeSql(s: Scoped): SQL {
  return s.tenantId ? sql`${a.tenantId} = ${s.tenantId}` : sql`${a.tenantId} is null`
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Math.round(Number(v)))
const iso = (v: unknown): string | null => (v === null || v === undefined ? null : new Date(v as string).toISOString())

type SummarySqlRow = {
  check: string
  attempts: number | string
  failures: number | string
  skipped: number | string
  p50: number | string | null
  p95: number | string | null
  max: number | string | null
  last_failure: string | Date | null
  last_error: string | null
}

export async function analysisSummary(tx: Tx, s: Scoped, hours: number, now: Date): Promise<AnalysisSummary> {
  const { from, to } = windowOf(now, hours)
  const measured = sql`${a.outcome} <> 'skipped'`
  const rows = rowsOf<SummarySqlRow>(
    await tx.execute(sql`
      select ${a.check} as check,
        count(*) as attempts,
        count(*) filter (where ${a.outcome} = 'failed') as failures,
        count(*) filter (where ${a.outcome} = 'skipped') as skipped,
        percentile_cont(0.5) within group (order by ${a.durationMs}) filter (where ${measured}) as p50,
        percentile_cont(0.95) within group (order by ${a.durationMs}) filter (where ${measured}) as p95,
        max(${a.durationMs}) filter (where ${measured}) as max,
        max(${a.startedAt}) filter (where ${a.outcome} = 'failed') as last_failure,
        (array_agg(${a.message} order by ${a.startedAt} desc, ${a.attempt} desc) filter (where ${a.outcome} = 'failed'))[1] as last_error
      from ${a}
      where ${scopeSql(s)} and ${a.startedAt} > ${from.toISOString()}::timestamptz and ${a.startedAt} <= ${to.toISOString()}::timestamptz
      group by ${a.check}`),
  )
  const tracking = await tx
    .select({ check: c.check, consecutiveFailures: c.consecutiveFailures })
    .from(c)
    .where(s.tenantId ? sql`${c.tenantId} = ${s.tenantId}` : sql`${c.tenantId} is null`)
  const checks = DIAGNOSTIC_CHECKS.map((check): AnalysisSummaryRow => {
    const row = rows.find((r) => r.check === check)
    const attempts = Number(row?.attempts ?? 0)
    const failures = Number(row?.failures ?? 0)
    const skipped = Number(row?.skipped ?? 0)
    const measuredCount = attempts - skipped
    return {
      check,
      attempts,
      failures,
      skipped,
      failureRate: measuredCount > 0 ? failures / measuredCount : 0,
      p50LatencyMs: num(row?.p50),
      p95LatencyMs: num(row?.p95),
      maxLatencyMs: num(row?.max),
      lastFailureUtc: iso(row?.last_failure),
      lastError: row?.last_error ?? null,
      consecutiveFailures: tracking.find((t) => t.check === check)?.consecutiveFailures ?? 0,
    }
  })
  return { hours, scope: scopeName(s), fromUtc: from.toISOString(), toUtc: to.toISOString(), checks }
}

function scopeName(s: Scoped): RunScope {
  return s.tenantId ? 'organisation' : 'instance'
}

/** The start of the UTC hour or day holding `at`. */
export function bucketStart(at: Date, bucket: AnalysisBucket): Date {
  const d = new Date(at)
  d.setUTCMinutes(0, 0, 0)
  if (bucket === 'day') d.setUTCHours(0)
  return d
}

/** Every bucket of the window, oldest first (the window's first partial one included). */
export function bucketsOf(window: Window, bucket: AnalysisBucket): string[] {
  const step = bucket === 'day' ? 24 * HOUR_MS : HOUR_MS
  const starts: string[] = []
  for (let t = bucketStart(window.from, bucket).getTime(); t <= window.to.getTime(); t += step) starts.push(new Date(t).toISOString())
  return starts
}

type SeriesSqlRow = { check: string; bucket: string; attempts: number | string; failures: number | string; mean: number | string | null; p95: number | string | null }

export async function analysisSeries(tx: Tx, s: Scoped, options: { hours: number; bucket: AnalysisBucket; check?: DiagnosticCheck | undefined }, now: Date): Promise<AnalysisSeries> {
  const window = windowOf(now, options.hours)
  const unit = options.bucket === 'day' ? sql.raw(`'day'`) : sql.raw(`'hour'`)
  const measured = sql`${a.outcome} <> 'skipped'`
  const rows = rowsOf<SeriesSqlRow>(
    await tx.execute(sql`
      select ${a.check} as check,
        to_char(date_trunc(${unit}, ${a.startedAt} at time zone 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS".000Z"') as bucket,
        count(*) as attempts,
        count(*) filter (where ${a.outcome} = 'failed') as failures,
        avg(${a.durationMs}) filter (where ${measured}) as mean,
        percentile_cont(0.95) within group (order by ${a.durationMs}) filter (where ${measured}) as p95
      from ${a}
      where ${scopeSql(s)} and ${a.startedAt} > ${window.from.toISOString()}::timestamptz and ${a.startedAt} <= ${window.to.toISOString()}::timestamptz
        ${options.check ? sql`and ${a.check} = ${options.check}` : sql``}
      group by 1, 2`),
  )
  const buckets = bucketsOf(window, options.bucket)
  const byKey = new Map(rows.map((r) => [`${r.check} ${r.bucket}`, r]))
  const checks = (options.check ? [options.check] : DIAGNOSTIC_CHECKS).map((check) => ({
    check,
    points: buckets.map((bucketStartUtc): AnalysisPoint => {
      const row = byKey.get(`${check} ${bucketStartUtc}`)
      return {
        bucketStartUtc,
        attempts: Number(row?.attempts ?? 0),
        failures: Number(row?.failures ?? 0),
        meanLatencyMs: num(row?.mean),
        p95LatencyMs: num(row?.p95),
      }
    }),
  }))
  return { hours: options.hours, bucket: options.bucket, scope: scopeName(s), fromUtc: window.from.toISOString(), toUtc: window.to.toISOString(), checks }
}

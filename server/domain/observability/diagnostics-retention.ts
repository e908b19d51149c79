import { and, asc, eq, inArray, isNull, lt, sql } from 'drizzle-orm'
import type { Database, Tx } from '#server/db/client'
import { tenants } from '#server/db/schema'
import { diagnosticAttempts, diagnosticRuns } from '#server/db/schema-observability'
import { rowsOf } from '#server/db/tenancy'
import { inScope } from './ingest'

/**
 * Diagnostic runs and their attempts are kept 90 days from the run's start (docs/observability.md
 * "Diagnostics"); the checks' failure tracking stays. Run hourly by server/jobs/telemetry-retention.ts,
 * each scope (every organisation, then the instance) in its own transactions, claimed with an
 * advisory lock so a second instance skips what the first is deleting.
 */
export const DIAGNOSTICS_RETENTION_DAYS = 90

const DAY_MS = 24 * 60 * 60_000
const BATCH = 5000

export type DiagnosticsPurge = { runs: number; attempts: number }

export async function purgeDiagnostics(db: Database, now: Date): Promise<DiagnosticsPurge> {
  const total: DiagnosticsPurge = { runs: 0, attempts: 0 }
  const before = new Date(now.getTime() - DIAGNOSTICS_RETENTION_DAYS * DAY_MS)
  const scopes: Array<string | null> = [...(await db.select({ id: tenants.id }).from(tenants).orderBy(asc(tenants.id))).map((t) => t.id), null]
  for (const tenantId of scopes) {
    for (;;) {
      const batch = await inScope(db, tenantId, async (tx) => {
        if (!(await claim(tx, `diagnostics-retention:${tenantId ?? 'untenanted'}`))) return undefined
        return purgeBatch(tx, tenantId, before)
      })
      if (!batch) break
      total.runs += batch.runs
      total.attempts += batch.attempts
      if (batch.runs < BATCH && batch.attempts < BATCH) break
    }
  }
  return total
}

async function claim(tx: Tx, key: string): Promise<boolean> {
  const [row] = rowsOf<{ ok: boolean }>(await tx.execute(sql`select pg_try_advisory_xact_lock(hashtextextended(${key}, 0)) as ok`))
  return row?.ok === true
}

async function purgeBatch(tx: Tx, tenantId: string | null, before: Date): Promise<DiagnosticsPurge> {
  const r = diagnosticRuns
  const a = diagnosticAttempts
  const doomedRuns = tx
    .select({ id: r.id })
    .from(r)
    .where(and(tenantId ? eq(r.tenantId, tenantId) : isNull(r.tenantId), lt(r.startedAt, before)))
    .limit(BATCH)
  // Attempts first (by their run, so a run never loses only some of them), then the runs.
  const attempts = await tx.delete(a).where(inArray(a.runId, doomedRuns)).returning({ id: a.id })
  const runs = await tx.delete(r).where(inArray(r.id, doomedRuns)).returning({ id: r.id })
  return { runs: runs.length, attempts: attempts.length }
}

import { and, asc, eq, inArray, isNull, lt, sql } from 'drizzle-orm'
import type { Database, Tx } from '#server/db/client'
import { tenants } from '#server/db/schema'
import { frontendErrors, telemetryEvents, telemetryIngestCounts } from '#server/db/schema-observability'
import { rowsOf } from '#server/db/tenancy'
import { inScope, utcDay } from './ingest'

/**
 * How long what browsers send is kept, counted from when it arrived (the browser's clock cannot
 * keep a row forever): telemetry 30 days, frontend errors and the ingest counters 90.
 */
export const TELEMETRY_RETENTION_DAYS = 30
export const FRONTEND_ERROR_RETENTION_DAYS = 90
export const INGEST_COUNTS_RETENTION_DAYS = 90

const DAY_MS = 24 * 60 * 60_000
/** Rows deleted per table and transaction; a scope loops until less is left. */
const BATCH = 5000

export type TelemetryPurge = { events: number; errors: number; counters: number }

/**
 * One pass over every organisation and the untenanted rows, each in its own transactions under
 * its row-level security. A scope is claimed with a transaction-scoped advisory lock, so a second
 * instance running the pass at the same moment skips what the first is deleting.
 */
export async function purgeTelemetry(db: Database, now: Date): Promise<TelemetryPurge> {
  const total: TelemetryPurge = { events: 0, errors: 0, counters: 0 }
  const scopes: Array<string | null> = [...(await db.select({ id: tenants.id }).from(tenants).orderBy(asc(tenants.id))).map((t) => t.id), null]
  for (const tenantId of scopes) {
    const purged = await purgeScope(db, tenantId, now)
    total.events += purged.events
    total.errors += purged.errors
    total.counters += purged.counters
  }
  return total
}

async function purgeScope(db: Database, tenantId: string | null, now: Date): Promise<TelemetryPurge> {
  const total: TelemetryPurge = { events: 0, errors: 0, counters: 0 }
  const eventsBefore = new Date(now.getTime() - TELEMETRY_RETENTION_DAYS * DAY_MS)
  const errorsBefore = new Date(now.getTime() - FRONTEND_ERROR_RETENTION_DAYS * DAY_MS)
  const countersBefore = utcDay(new Date(now.getTime() - INGEST_COUNTS_RETENTION_DAYS * DAY_MS))
  for (;;) {
    const batch = await inScope(db, tenantId, async (tx) => {
      if (!(await claim(tx, `telemetry-retention:${tenantId ?? 'untenanted'}`))) return undefined
      const events = await deleteEvents(tx, tenantId, eventsBefore)
      const errors = await deleteErrors(tx, tenantId, errorsBefore)
      const counters = await tx
        .delete(telemetryIngestCounts)
        .where(and(tenantId ? eq(telemetryIngestCounts.tenantId, tenantId) : isNull(telemetryIngestCounts.tenantId), lt(telemetryIngestCounts.day, countersBefore)))
        .returning({ id: telemetryIngestCounts.id })
      return { events, errors, counters: counters.length }
    })
    if (!batch) return total
    total.events += batch.events
    total.errors += batch.errors
    total.counters += batch.counters
    if (batch.events < BATCH && batch.errors < BATCH) return total
  }
}

async function claim(tx: Tx, key: string): Promise<boolean> {
  const [row] = rowsOf<{ ok: boolean }>(await tx.execute(sql`select pg_try_advisory_xact_lock(hashtextextended(${key}, 0)) as ok`))
  return row?.ok === true
}

async function deleteEvents(tx: Tx, tenantId: string | null, before: Date): Promise<number> {
  const t = telemetryEvents
  const doomed = tx
    .select({ id: t.id })
    .from(t)
    .where(and(tenantId ? eq(t.tenantId, tenantId) : isNull(t.tenantId), lt(t.receivedAt, before)))
    .limit(BATCH)
  return (await tx.delete(t).where(inArray(t.id, doomed)).returning({ id: t.id })).length
}

async function deleteErrors(tx: Tx, tenantId: string | null, before: Date): Promise<number> {
  const t = frontendErrors
  const doomed = tx
    .select({ id: t.id })
    .from(t)
    .where(and(tenantId ? eq(t.tenantId, tenantId) : isNull(t.tenantId), lt(t.receivedAt, before)))
    .limit(BATCH)
  return (await tx.delete(t).where(inArray(t.id, doomed)).returning({ id: t.id })).length
}

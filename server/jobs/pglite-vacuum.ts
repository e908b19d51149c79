import { sql } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { rowsOf } from '#server/db/tenancy'
import type { Logger } from '#server/http/logger'
import { startPeriodic, type PeriodicJob } from './periodic'

/**
 * PGlite runs PostgreSQL as one standalone backend, so autovacuum never runs there: dead rows of
 * every update stay, statistics go stale, and the visibility map that index-only scans rely on is
 * never set (a report's item counts then read every item row from the table). This pass does what
 * autovacuum would, with its default thresholds: it VACUUMs (and ANALYZEs) each table that passed
 * one. PostgreSQL servers have autovacuum and never start it.
 */
export async function vacuumWhereDue(db: Database): Promise<string[]> {
  // Autovacuum's defaults: 50 + 20 % dead rows, 1000 + 20 % inserted rows (PostgreSQL 13+), 50 + 10 % changed rows for ANALYZE.
  const due = rowsOf<{ relname: string }>(
    await db.execute(sql`
      select relname from pg_stat_user_tables
      where n_dead_tup > 50 + 0.2 * n_live_tup
         or n_ins_since_vacuum > 1000 + 0.2 * n_live_tup
         or n_mod_since_analyze > 50 + 0.1 * n_live_tup
      order by relname`),
  ).map((row) => row.relname)
  for (const table of due) await db.execute(sql`vacuum (analyze) ${sql.identifier(table)}`)
  return due
}

/** Runs the pass every `intervalMs` (10 minutes by default) on PGlite, one pass at a time, until stopped. */
export function startPgliteVacuum(options: { db: Database; logger: Logger; intervalMs?: number }): PeriodicJob {
  const { db, logger, intervalMs = 10 * 60_000 } = options
  return startPeriodic({
    name: 'PGlite vacuum pass',
    // The embedded database is this process's own (PGlite is one instance by construction), and
    // job_leases lives in it: a lease would guard nothing.
    lease: 'per-instance',
    intervalMs,
    logger,
    pass: async () => {
      const started = performance.now()
      const tables = await vacuumWhereDue(db)
      if (tables.length > 0) logger.info({ tables, ms: Math.round(performance.now() - started) }, 'PGlite tables vacuumed')
    },
  })
}

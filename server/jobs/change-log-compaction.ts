import type { Database } from '#server/db/client'
import { tenants } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import { CHANGE_LOG_RETENTION_DAYS, compactChangeLog } from '#server/domain/tenancy/change-log'
import type { Logger } from '#server/http/logger'
import { startPeriodic, type PeriodicJob } from './periodic'

const BATCH = 5000
const DAY_MS = 24 * 60 * 60_000

/**
 * Deletes change-log rows older than CHANGE_LOG_RETENTION_DAYS, tenant by tenant, in batches (each
 * its own short transaction under the tenant's row-level security), and moves each tenant's
 * compaction horizon; sync cursors below it answer 410 (docs/site-reporting.md "Change log").
 */
export async function compactChangeLogs(db: Database, now: Date): Promise<number> {
  const before = new Date(now.getTime() - CHANGE_LOG_RETENTION_DAYS * DAY_MS)
  let total = 0
  for (const tenant of await db.select({ id: tenants.id }).from(tenants)) {
    for (;;) {
      const deleted = await withTenant(db, tenant.id, (tx) =>
        compactChangeLog({ tx, actor: { tenantId: tenant.id, userId: '', roleKey: 'read-only' }, now }, before, BATCH),
      )
      total += deleted
      if (deleted < BATCH) break
    }
  }
  return total
}

/** Runs the compaction every `intervalMs` (an hour by default), one pass at a time, until stopped. */
export function startChangeLogCompaction(options: { db: Database; logger: Logger; intervalMs?: number }): PeriodicJob {
  const { db, logger, intervalMs = 60 * 60_000 } = options
  return startPeriodic({
    name: 'change log compaction',
    lease: { db },
    intervalMs,
    logger,
    pass: async () => {
      const deleted = await compactChangeLogs(db, new Date())
      if (deleted > 0) logger.info({ deleted }, 'change log compacted')
    },
  })
}

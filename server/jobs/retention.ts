import type { Database } from '#server/db/client'
import { runRetentionPass } from '#server/domain/config/retention'
import type { Logger } from '#server/http/logger'
import { startPeriodic, type PeriodicJob } from './periodic'

/**
 * The retention pass (docs/admin/shell-and-retention.md "Retention"): archives and purges per each
 * organisation's enabled policy. It looks at start and every hour, and an organisation is served
 * about once a day (its last run is in the database: RETENTION_SPACING_MS), so restarts neither
 * skip the day nor bring it forward. Several instances may run it: the job's lease takes one pass
 * an hour between them, and each organisation is claimed with an advisory lock.
 */
export function startRetention(options: { db: Database; logger: Logger; intervalMs?: number }): PeriodicJob {
  const { db, logger, intervalMs = 60 * 60_000 } = options
  return startPeriodic({
    name: 'retention pass',
    lease: { db },
    intervalMs,
    logger,
    runAtStart: true,
    pass: async () => {
      const runs = await runRetentionPass(db, new Date())
      const worked = runs.filter((r) => r.archived + r.purgedItems + r.purgedReports > 0)
      if (worked.length > 0) logger.info({ runs: worked }, 'retention archived and purged')
    },
  })
}

import type { Database } from '#server/db/client'
import { runRetentionPass } from '#server/domain/admin/retention'
import type { Logger } from '#server/http/logger'
import { startPeriodic, type PeriodicJob } from './periodic'

/**
 * The daily retention pass (docs/admin/shell-and-retention.md "Retention"): archives and purges
 * per each organisation's enabled policy. Not at start: a restart must not purge ahead of the day.
 * Several instances may run it; each organisation is claimed with an advisory lock.
 */
export function startRetention(options: { db: Database; logger: Logger; intervalMs?: number }): PeriodicJob {
  const { db, logger, intervalMs = 24 * 60 * 60_000 } = options
  return startPeriodic({
    name: 'retention pass',
    lease: { db },
    intervalMs,
    logger,
    runAtStart: false,
    pass: async () => {
      const runs = await runRetentionPass(db, new Date())
      const worked = runs.filter((r) => r.archived + r.purgedItems + r.purgedReports > 0)
      if (worked.length > 0) logger.info({ runs: worked }, 'retention archived and purged')
    },
  })
}

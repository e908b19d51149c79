import type { Config } from '#server/config'
import type { Database } from '#server/db/client'
import { claimScheduledRun, completeRun, finalAttempts } from '#server/domain/observability/diagnostics'
import type { Logger } from '#server/http/logger'
import type { BlobStore } from '#server/storage/blob-store'
import { startPeriodic, type PeriodicJob } from './periodic'

/**
 * The instance's own health (docs/observability.md "Diagnostics"): every DIAGNOSTICS_INTERVAL_MINUTES
 * (15 by default; 0 turns it off) the checks run once as a run without an organisation, shown to
 * every administrator. Every instance ticks; the claim (an advisory lock and the last scheduled
 * run's start) lets only one of them run it per interval. Also once at start, if it is due.
 */
export function startDiagnostics(options: { db: Database; config: Config; store: BlobStore; logger: Logger; intervalMs?: number }): PeriodicJob | undefined {
  const { db, config, store, logger } = options
  const intervalMs = options.intervalMs ?? config.diagnosticsIntervalMinutes * 60_000
  if (intervalMs <= 0) return undefined
  return startPeriodic({
    name: 'diagnostics',
    // Leased, not per-instance: instances already share one run per interval (claimScheduledRun),
    // whose checks look at whichever instance ran it; the lease spares the others the claim.
    lease: { db },
    intervalMs,
    logger,
    runAtStart: true,
    pass: async () => {
      const run = await claimScheduledRun(db, new Date(), intervalMs)
      if (!run) return
      const { outcome, attempts } = await completeRun({ db, config, store }, run, null, () => new Date())
      if (outcome === 'failed') {
        const failing = [...finalAttempts(attempts).values()].filter((a) => a.outcome === 'failed').map((a) => a.check)
        logger.warn({ runId: run.id, failing }, `diagnostics: ${failing.join(', ')} failed (Administration › Diagnostics)`)
      }
    },
  })
}

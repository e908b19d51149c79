import type { Database } from '#server/db/client'
import { purgeDiagnostics } from '#server/domain/observability/diagnostics-retention'
import { purgeCspReports } from '#server/domain/observability/csp-retention'
import { purgeTelemetry } from '#server/domain/observability/retention'
import type { Logger } from '#server/http/logger'
import { startPeriodic, type PeriodicJob } from './periodic'

/**
 * Deletes telemetry older than 30 days and frontend errors older than 90 (server/domain/
 * observability/retention.ts), every `intervalMs` (an hour by default), one pass at a time. Several
 * instances may run it: each scope is claimed with an advisory lock.
 */
export function startTelemetryRetention(options: { db: Database; logger: Logger; intervalMs?: number }): PeriodicJob {
  const { db, logger, intervalMs = 60 * 60_000 } = options
  return startPeriodic({
    name: 'telemetry retention',
    lease: { db },
    intervalMs,
    logger,
    pass: async () => {
      const purged = await purgeTelemetry(db, new Date())
      if (purged.events + purged.errors + purged.counters > 0) logger.info({ purged }, 'telemetry retention purged')
      // CSP reports: 90 days (server/domain/observability/csp-retention.ts).
      const cspReports = await purgeCspReports(db, new Date())
      if (cspReports > 0) logger.info({ purged: { cspReports } }, 'CSP report retention purged')
      // Diagnostic runs and attempts after 90 days (server/domain/observability/diagnostics-retention.ts).
      const diagnostics = await purgeDiagnostics(db, new Date())
      if (diagnostics.runs + diagnostics.attempts > 0) logger.info({ purged: diagnostics }, 'diagnostics retention purged')
    },
  })
}

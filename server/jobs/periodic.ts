import type { Database } from '#server/db/client'
import type { Logger } from '#server/http/logger'
import { recordJobPass } from '#server/http/metrics'
import { acquireLease, LEASE_TTL_MS, processHolder, releaseLease, renewLease } from './lease'

export type PeriodicJob = { stop(): Promise<void> }

/**
 * How a job shares its passes with the other instances on its database: `{ db }` takes the job's
 * lease (server/jobs/lease.ts) around each pass, so one instance at a time runs it, about once per
 * interval between them all (`holder` and `ttlMs` are for tests that play several instances in one
 * process); 'per-instance' for work that belongs to this instance alone, run by every instance.
 */
export type JobLease = { db: Database; holder?: string; ttlMs?: number } | 'per-instance'

export type PeriodicOptions = {
  name: string
  intervalMs: number
  logger: Logger
  runAtStart?: boolean
  lease: JobLease
  pass: () => Promise<void>
}

/**
 * A background job of this instance: `pass` every `intervalMs` (and once at start when asked), one
 * pass at a time — a tick that finds the last pass still running is skipped, so slow passes never
 * queue up — a failed pass logged and the next one tried as usual; `stop` waits for the pass under
 * way, which hands its lease back. A tick that finds the lease held by another instance skips the
 * pass. Each pass is counted in the metrics (ok, failed or skipped). The timer never keeps the
 * process alive.
 */
export function startPeriodic(options: PeriodicOptions): PeriodicJob {
  const { name, intervalMs, logger, pass } = options
  let stopped = false
  let running: Promise<void> | undefined

  /** The pass under the job's lease; 'skipped' when another instance holds it. */
  async function leasedPass(lease: Exclude<JobLease, 'per-instance'>): Promise<'ok' | 'skipped'> {
    const { db, holder = processHolder, ttlMs = LEASE_TTL_MS } = lease
    const started = performance.now()
    if (!(await acquireLease(db, name, holder, ttlMs))) return 'skipped'
    const renewal = setInterval(() => {
      renewLease(db, name, holder, ttlMs)
        .then((ours) => {
          if (!ours) logger.warn({ job: name }, `${name}: another instance took its lease over mid-pass (this pass ran longer than the lease without renewing it)`)
        })
        .catch((error: unknown) => logger.warn({ err: error, job: name }, `${name}: renewing its lease failed`))
    }, ttlMs / 3)
    renewal.unref()
    let ok = false
    try {
      await pass()
      ok = true
      return 'ok'
    } finally {
      clearInterval(renewal)
      // After a pass that did its work the job rests for the rest of its interval on every instance;
      // after a failure the next tick of any instance tries again.
      const keepMs = ok ? intervalMs - (performance.now() - started) : 0
      await releaseLease(db, name, holder, keepMs).catch((error: unknown) =>
        logger.warn({ err: error, job: name }, `${name}: releasing its lease failed; it frees itself within ${Math.round(ttlMs / 1000)} s`),
      )
    }
  }

  const run = () => {
    if (stopped || running) return
    const started = performance.now()
    const seconds = () => (performance.now() - started) / 1000
    running = (options.lease === 'per-instance' ? pass().then(() => 'ok' as const) : leasedPass(options.lease))
      .then((outcome) => recordJobPass(name, outcome, outcome === 'ok' ? seconds() : 0))
      .catch((error: unknown) => {
        recordJobPass(name, 'failed', seconds())
        logger.error({ err: error, job: name }, `${name} failed`)
      })
      .finally(() => {
        running = undefined
      })
  }
  if (options.runAtStart) run()
  const timer = setInterval(run, intervalMs)
  timer.unref()
  return {
    async stop() {
      stopped = true
      clearInterval(timer)
      await running
    },
  }
}

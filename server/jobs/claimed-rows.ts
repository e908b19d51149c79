import { tenants } from '#server/db/schema'
import type { Database } from '#server/db/client'
import type { Logger } from '#server/http/logger'

/**
 * Jobs whose work is tenant rows claimed one at a time (transmittal packages, export jobs): the
 * rows sit under forced row-level security, so a pass walks the tenants and claims in each one's
 * transaction (the claim itself, FOR UPDATE SKIP LOCKED, is the row owner's: two instances never
 * take the same row), then works outside any transaction while a heartbeat renews the claim in
 * short ones. A row whose heartbeat stopped (its instance died) is claimed again by the next pass
 * anywhere and starts over. Passes run every `intervalMs` and at once when this instance queues a
 * row (`nudge`), so the person waiting sees progress within a moment.
 */

/** Another instance took the row over (its heartbeat found the claim gone). */
export class ClaimLost extends Error {
  constructor(what = 'the row') {
    super(`another instance took ${what} over`)
    this.name = 'ClaimLost'
  }
}

/** This instance is stopping: the row is handed back, not failed. */
export class Stopping extends Error {
  constructor() {
    super('the instance is stopping')
    this.name = 'Stopping'
  }
}

export type ClaimingJob = {
  /** Looks for work in the tenant now (a row was just queued there). */
  nudge(tenantId: string): void
  /** Resolves once no pass is running (tests, and the bench, wait on it). */
  whenIdle(): Promise<void>
  stop(): Promise<void>
}

/**
 * One pass: in each tenant (or only those given), claims and works rows until none is left to
 * claim. Answers how many it worked to an end (not those lost to another instance or a stop).
 */
export async function claimEach<C>(
  db: Database,
  tenantIds: readonly string[] | undefined,
  signal: AbortSignal | undefined,
  claim: (tenantId: string) => Promise<C | undefined>,
  work: (claim: C) => Promise<'lost' | string>,
): Promise<number> {
  const ids = tenantIds ?? (await db.select({ id: tenants.id }).from(tenants)).map((t) => t.id)
  let handled = 0
  for (const tenantId of ids) {
    while (!signal?.aborted) {
      const claimed = await claim(tenantId)
      if (claimed === undefined) break
      if ((await work(claimed)) !== 'lost') handled++
    }
  }
  return handled
}

/**
 * Runs `work` while renewing the claim every `everyMs` (`beat` answers false once the claim is
 * lost): the signal `work` receives aborts with ClaimLost then, or with Stopping when `stopping`
 * aborts. A failure of `work` after either is rethrown as that reason, so the caller tells a lost
 * claim and a stop from a real failure by the error it catches.
 */
export async function whileHeartbeating<T>(
  options: { everyMs: number; logger: Logger; stopping?: AbortSignal | undefined; what: string },
  beat: () => Promise<boolean>,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const { everyMs, logger, stopping, what } = options
  const controller = new AbortController()
  const stop = () => controller.abort(stopping?.reason instanceof Error ? stopping.reason : new Stopping())
  if (stopping?.aborted) stop()
  stopping?.addEventListener('abort', stop, { once: true })
  const heartbeat = setInterval(() => {
    beat()
      .then((ok) => {
        if (!ok) controller.abort(new ClaimLost(what))
      })
      .catch((error: unknown) => logger.warn({ err: error }, `a heartbeat of ${what} failed`))
  }, everyMs)
  heartbeat.unref()
  try {
    return await work(controller.signal)
  } catch (error) {
    throw controller.signal.aborted ? controller.signal.reason : error
  } finally {
    clearInterval(heartbeat)
    stopping?.removeEventListener('abort', stop)
  }
}

/** Starts a job on this instance: a pass at once, then every `intervalMs`, and on every nudge; one pass at a time. */
export function startClaimingJob(options: {
  name: string
  logger: Logger
  intervalMs: number
  pass: (tenantIds: string[] | undefined, signal: AbortSignal) => Promise<number>
}): ClaimingJob {
  const { name, logger, intervalMs, pass } = options
  const controller = new AbortController()
  let stopped = false
  let running: Promise<void> | undefined
  // Work asked for while a pass runs: every tenant, or these.
  let pending: Set<string> | 'all' | undefined
  const run = (tenantIds?: string[]) => {
    if (stopped) return
    if (running) {
      pending = tenantIds === undefined || pending === 'all' ? 'all' : new Set([...(pending ?? []), ...tenantIds])
      return
    }
    running = pass(tenantIds, controller.signal)
      .then(() => undefined)
      .catch((error: unknown) => logger.error({ err: error, job: name }, `${name} pass failed`))
      .finally(() => {
        running = undefined
        const next = pending
        pending = undefined
        if (next !== undefined) run(next === 'all' ? undefined : [...next])
      })
  }
  const timer = setInterval(() => run(), intervalMs)
  timer.unref()
  const job: ClaimingJob = {
    nudge: (tenantId) => run([tenantId]),
    async whenIdle() {
      while (running) await running
    },
    async stop() {
      stopped = true
      clearInterval(timer)
      controller.abort(new Stopping())
      await running
    },
  }
  run()
  return job
}

import type { Logger } from '#server/http/logger'

export type PeriodicJob = { stop(): Promise<void> }

/**
 * A background job of this instance: `pass` every `intervalMs` (and once at start when asked), one
 * pass at a time — a tick that finds the last pass still running is skipped, so slow passes never
 * queue up — a failed pass logged and the next one tried as usual; `stop` waits for the pass under
 * way. The timer never keeps the process alive.
 */
export function startPeriodic(options: { name: string; intervalMs: number; logger: Logger; runAtStart?: boolean; pass: () => Promise<void> }): PeriodicJob {
  const { name, intervalMs, logger, pass } = options
  let stopped = false
  let running: Promise<void> | undefined
  const run = () => {
    if (stopped || running) return
    running = pass()
      .catch((error: unknown) => logger.error({ err: error, job: name }, `${name} failed`))
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

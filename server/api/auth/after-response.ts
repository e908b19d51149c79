import type { Context } from 'hono'
import type { Database } from '#server/db/client'
import type { BackendEnv } from '#server/http/env'

const pending = new WeakMap<Database, Set<Promise<void>>>()

/**
 * Runs work after the response has gone: calls whose answer must not tell whether an address has
 * an account (registration, reset requests) answer at once and do the account-dependent work
 * here, so both paths take the same time for the caller. Failures are logged, never answered.
 */
export function afterResponse(c: Context<BackendEnv>, work: () => Promise<void>): void {
  const { db } = c.get('deps')
  const log = c.get('log')
  let running = pending.get(db)
  if (!running) pending.set(db, (running = new Set()))
  const set = running
  const task: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
    .then(work)
    .catch((error: unknown) => log.error({ err: error }, 'work after the response failed'))
    .finally(() => set.delete(task))
  set.add(task)
}

/** Waits until the work started after responses (on this database) is done: for shutdown and tests. */
export async function settleAfterResponse(db: Database): Promise<void> {
  const set = pending.get(db)
  while (set && set.size > 0) await Promise.all([...set])
}

import { SESSION_REFRESH_THROTTLE_MS } from '~/lib/constants'

/**
 * refreshed: the session was renewed (or joined a renewal already under way); throttled: one was
 * attempted less than 15 s ago; failed: the refresh was refused or unreachable; signed-out: the
 * refresh's own answer already signed the user out (blocked, not active, expired).
 */
export type RefreshOutcome = 'refreshed' | 'throttled' | 'failed' | 'signed-out'

/**
 * Spec §8/§9: at most one session refresh per 15 s per client. Calls that fail with 401 at the
 * same time share the refresh under way instead of each starting one.
 */
export function createSessionRefresher(
  refresh: () => Promise<Exclude<RefreshOutcome, 'throttled'>>,
  now: () => number,
): () => Promise<RefreshOutcome> {
  let startedAt: number | undefined
  let inFlight: Promise<Exclude<RefreshOutcome, 'throttled'>> | undefined

  return async function refreshSession() {
    if (inFlight) return inFlight
    const at = now()
    if (startedAt !== undefined && at - startedAt < SESSION_REFRESH_THROTTLE_MS) return 'throttled'
    startedAt = at
    inFlight = refresh().catch(() => 'failed' as const)
    try {
      return await inFlight
    } finally {
      inFlight = undefined
    }
  }
}

import { useEffect, useState } from 'react'
import { createBrowserApi } from '~/lib/api/browser'
import type { TransmittalPackage } from '~/lib/doc-control/types'

/** docs/doc-control.md "Packaging": the client starts the job, then polls its status about once a second. */
export const PACKAGE_POLL_MS = 1000

export function isInProgress(pkg: TransmittalPackage | null): boolean {
  return pkg?.status === 'queued' || pkg?.status === 'running'
}

/**
 * The package as it is now. The page renders the state its loader read (so without JavaScript the
 * "Refresh status" link is the way to see progress); with JavaScript this polls
 * GET /api/transmittals/{id}/package while the job is queued or running, and stops once it is
 * ready or failed. A failed poll (a lost connection) is tried again at the next tick.
 */
export function usePackagePoll(transmittalId: string, initial: TransmittalPackage | null): TransmittalPackage | null {
  const [pkg, setPkg] = useState(initial)
  const [attempt, setAttempt] = useState(0)
  // A new page load (a form post, a refresh) brings a newer state than the last poll.
  useEffect(() => setPkg(initial), [initial])
  useEffect(() => {
    if (!isInProgress(pkg)) return
    let stopped = false
    const timer = window.setTimeout(async () => {
      const result = await createBrowserApi().GET('/api/transmittals/{transmittalId}/package', { path: { transmittalId } })
      if (stopped) return
      if (result.ok && result.data) setPkg(result.data)
      else setAttempt((n) => n + 1)
    }, PACKAGE_POLL_MS)
    return () => {
      stopped = true
      window.clearTimeout(timer)
    }
  }, [pkg, attempt, transmittalId])
  return pkg
}

import { useEffect, useRef, useState } from 'react'
import { useFetchers, useNavigation, useRevalidator } from 'react-router'
import type { EntityChanged } from '~/lib/realtime/events'
import { useShellSession } from '~/root'
import { realtime } from './realtime'
import { isOwnEcho, REVALIDATION_DEBOUNCE_MS, RevalidationScheduler } from './revalidation-scheduler'

/**
 * Reloads the screen's data when a change it shows is committed anywhere in the tenant
 * (EntityChanged): once per burst, and after the user's own navigation or submission rather than
 * during it; not for the echo of this tab's own submission, whose redirect already loaded fresh data
 * (and brought a flash message that a second load would drop). Revalidation keeps the DOM, so what
 * the user is typing in a form stays.
 * `onMatch` hears every matching change, e.g. to say who made it.
 */
export function useLiveRevalidation(match: (change: EntityChanged) => boolean, onMatch?: (change: EntityChanged) => void): void {
  const revalidator = useRevalidator()
  const navigation = useNavigation()
  const fetchers = useFetchers()
  const busy = navigation.state !== 'idle' || revalidator.state !== 'idle' || fetchers.some((f) => f.state !== 'idle')
  const submitting = isSubmission(navigation.formMethod) || fetchers.some((f) => f.state !== 'idle' && isSubmission(f.formMethod))
  const ownUserId = useShellSession()?.userId

  // When this tab's last submission (and the load after it) ended: its changes come back as events.
  const lastSubmissionEndedAt = useRef(0)
  const wasSubmitting = useRef(false)
  useEffect(() => {
    if (wasSubmitting.current && !submitting) lastSubmissionEndedAt.current = Date.now()
    wasSubmitting.current = submitting
  }, [submitting])

  // The latest of everything the subscription needs, without resubscribing on every render.
  const latest = useRef({ match, onMatch, revalidate: revalidator.revalidate, submitting, ownUserId })
  latest.current = { match, onMatch, revalidate: revalidator.revalidate, submitting, ownUserId }

  const [scheduler] = useState(() => new RevalidationScheduler(() => void latest.current.revalidate(), REVALIDATION_DEBOUNCE_MS))

  useEffect(() => {
    scheduler.setBusy(busy)
  }, [scheduler, busy])

  useEffect(() => {
    const off = realtime.onEntityChanged((change) => {
      const { match, onMatch, submitting, ownUserId } = latest.current
      if (!match(change)) return
      onMatch?.(change)
      const echo = isOwnEcho({
        changedByUserId: change.changedBy?.userId,
        ownUserId,
        submitting,
        lastSubmissionEndedAt: lastSubmissionEndedAt.current,
        now: Date.now(),
      })
      if (!echo) scheduler.notify()
    })
    return () => {
      off()
      scheduler.dispose()
    }
  }, [scheduler])
}

function isSubmission(formMethod: string | undefined): boolean {
  return formMethod !== undefined && formMethod.toUpperCase() !== 'GET'
}

/** Which changes each screen shows (the brief of issue 9). */
export const liveMatch = {
  item: (itemId: string) => (change: EntityChanged) => change.entityType === 'ReportItem' && change.entityId === itemId,
  /** Items list, report page, dashboard: anything of reporting. */
  reporting: (change: EntityChanged) => REPORTING_TYPES.has(change.entityType),
  reports: (change: EntityChanged) => change.entityType === 'Report' || change.entityType === 'Project',
  projects: (change: EntityChanged) => change.entityType === 'Project',
}

const REPORTING_TYPES = new Set(['ReportItem', 'Report', 'Project'])

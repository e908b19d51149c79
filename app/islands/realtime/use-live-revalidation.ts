import { useEffect, useRef, useState } from 'react'
import { useFetchers, useNavigation, useRevalidator } from 'react-router'
import type { EntityChanged } from '~/lib/realtime/events'
import { realtime } from './realtime'
import { REVALIDATION_DEBOUNCE_MS, RevalidationScheduler } from './revalidation-scheduler'

/**
 * Reloads the screen's data when a change it shows is committed anywhere in the tenant
 * (EntityChanged): once per burst, and after the user's own navigation or submission rather than
 * during it. Revalidation keeps the DOM, so what the user is typing in a form stays.
 * `onMatch` hears every matching change, e.g. to say who made it.
 */
export function useLiveRevalidation(match: (change: EntityChanged) => boolean, onMatch?: (change: EntityChanged) => void): void {
  const revalidator = useRevalidator()
  const navigation = useNavigation()
  const fetchers = useFetchers()
  const busy = navigation.state !== 'idle' || revalidator.state !== 'idle' || fetchers.some((f) => f.state !== 'idle')

  // The latest of everything the subscription needs, without resubscribing on every render.
  const latest = useRef({ match, onMatch, revalidate: revalidator.revalidate })
  latest.current = { match, onMatch, revalidate: revalidator.revalidate }

  const [scheduler] = useState(() => new RevalidationScheduler(() => void latest.current.revalidate(), REVALIDATION_DEBOUNCE_MS))

  useEffect(() => {
    scheduler.setBusy(busy)
  }, [scheduler, busy])

  useEffect(() => {
    const off = realtime.onEntityChanged((change) => {
      if (!latest.current.match(change)) return
      latest.current.onMatch?.(change)
      scheduler.notify()
    })
    return () => {
      off()
      scheduler.dispose()
    }
  }, [scheduler])
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

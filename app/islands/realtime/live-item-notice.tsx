import { useEffect, useState } from 'react'
import { useHydrated } from '~/components/ui/use-hydrated'
import type { EntityChanged } from '~/lib/realtime/events'
import { realtime } from './realtime'
import { liveMatch, useLiveRevalidation } from './use-live-revalidation'

/**
 * Keeps the item page live: reloads its data when the item changes anywhere, and says politely who
 * changed it when it was someone else. A deleted item is only announced: reloading would swap the
 * page, and whatever the user was typing, for a "not found" screen.
 */
export function LiveItemUpdates({ itemId, ownUserId }: { itemId: string; ownUserId: string | null }) {
  const hydrated = useHydrated()
  const [notice, setNotice] = useState('')
  useLiveRevalidation(
    (change) => liveMatch.item(itemId)(change) && change.changeType !== 'Deleted',
    (change) => {
      const name = otherPerson(change, ownUserId)
      if (name) setNotice(`${name} updated this item.`)
    },
  )
  useEffect(
    () =>
      realtime.onEntityChanged((change) => {
        // The user's own delete leaves the page by itself.
        if (!liveMatch.item(itemId)(change) || change.changeType !== 'Deleted' || change.changedBy?.userId === ownUserId) return
        setNotice(`${otherPerson(change, ownUserId) ?? 'Someone'} deleted this item.`)
      }),
    [itemId, ownUserId],
  )
  if (!hydrated) return null
  return (
    <p role="status" className={notice ? 'mb-4 text-sm text-muted' : 'sr-only'}>
      {notice}
    </p>
  )
}

/** Who made the change, when it was a person other than the user. */
function otherPerson(change: EntityChanged, ownUserId: string | null): string | undefined {
  return change.changedBy && change.changedBy.userId !== ownUserId ? change.changedBy.displayName : undefined
}

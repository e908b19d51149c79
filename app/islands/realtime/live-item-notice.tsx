import { useState } from 'react'
import { useHydrated } from '~/components/ui/use-hydrated'
import { liveMatch, useLiveRevalidation } from './use-live-revalidation'

/**
 * Keeps the item page live: reloads its data when the item changes anywhere, and says politely who
 * changed it when it was someone else.
 */
export function LiveItemUpdates({ itemId, ownUserId }: { itemId: string; ownUserId: string | null }) {
  const hydrated = useHydrated()
  const [notice, setNotice] = useState('')
  useLiveRevalidation(liveMatch.item(itemId), (change) => {
    if (change.changedBy && change.changedBy.userId !== ownUserId) setNotice(`${change.changedBy.displayName} updated this item.`)
  })
  if (!hydrated) return null
  return (
    <p role="status" className={notice ? 'mb-4 text-sm text-muted' : 'sr-only'}>
      {notice}
    </p>
  )
}

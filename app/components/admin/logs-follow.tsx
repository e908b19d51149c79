import { Suspense } from 'react'
import { lazyPart } from '~/components/ui/lazy-part'
import { useHydrated } from '~/components/ui/use-hydrated'
import type { LogsFollowProps } from '~/islands/logs-follow'

// Its own chunk, fetched after hydration: the page paints and hydrates without it.
const LogsFollowIsland = lazyPart(() => import('~/islands/logs-follow').then((m) => m.LogsFollowIsland))

/** "Follow live" needs the hub connection, so without JavaScript there is nothing: the page is refreshed instead. */
export function LogsFollow(props: LogsFollowProps) {
  const hydrated = useHydrated()
  if (!hydrated) return null
  return (
    <Suspense fallback={null}>
      <LogsFollowIsland {...props} />
    </Suspense>
  )
}

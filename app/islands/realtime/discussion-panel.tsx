import { Suspense } from 'react'
import { lazyPart } from '~/components/ui/lazy-part'
import { useHydrated } from '~/components/ui/use-hydrated'
import type { DiscussionProps } from './discussion-island'

// Its own chunk, fetched after hydration: the item page paints and hydrates without it.
const DiscussionIsland = lazyPart(() => import('./discussion-island').then((m) => m.DiscussionIsland))

/**
 * The item page's discussion (a realtime room). It needs the connection, so without JavaScript
 * there is nothing: the page's responses are the record that works everywhere.
 */
export function DiscussionPanel(props: DiscussionProps) {
  const hydrated = useHydrated()
  if (!hydrated) return null
  return (
    <Suspense fallback={null}>
      <DiscussionIsland {...props} />
    </Suspense>
  )
}

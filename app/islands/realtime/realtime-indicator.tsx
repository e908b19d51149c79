import { cx } from '~/components/ui/class-names'
import { useHydrated } from '~/components/ui/use-hydrated'
import { useRealtimeConnection, useRealtimeState } from './realtime'
import { indicatorText } from './status'

/**
 * The shell header's live indicator; it also starts the tab's connection, so there is one only in
 * the signed-in shell. Nothing without JavaScript (there is no connection to tell about): the
 * status region appears after hydration, empty until there is something to say.
 */
export function RealtimeIndicator() {
  useRealtimeConnection()
  const hydrated = useHydrated()
  const state = useRealtimeState()
  if (!hydrated) return null
  const text = indicatorText(state)
  return (
    <span role="status" data-realtime-status={state.status} className="inline-flex min-w-0 items-center text-sm text-muted">
      {text ? (
        <>
          <span
            aria-hidden="true"
            title={text}
            className={cx('size-2 shrink-0 rounded-full', text === 'Live' ? 'bg-success' : text === 'Offline' ? 'bg-critical' : 'bg-warning')}
          />
          {/* On a phone only the dot shows, so the header stays uncrowded; the word is still read out. */}
          <span className="ml-1.5 max-sm:sr-only">{text}</span>
        </>
      ) : null}
    </span>
  )
}

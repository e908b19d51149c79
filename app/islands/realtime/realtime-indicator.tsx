import { cx } from '~/components/ui/class-names'
import { HeaderStatus } from '~/components/ui/header-status'
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
  const mark = cx('rounded-full', text === 'Live' ? 'bg-success' : text === 'Offline' ? 'bg-critical' : 'bg-warning')
  return <HeaderStatus text={text ?? ''} mark={mark} data={{ 'data-realtime-status': state.status }} />
}

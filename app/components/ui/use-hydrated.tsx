import { useSyncExternalStore } from 'react'

function subscribe() {
  return () => {}
}

/**
 * False on the server and during hydration, true once React runs in the browser. Controls that
 * only work with JavaScript (a dismiss button, a Cancel that closes a disclosure) render only when
 * this is true, so a page without JavaScript never shows a button that does nothing.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  )
}

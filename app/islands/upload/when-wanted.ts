import { useEffect, useState } from 'react'

/**
 * When to fetch an upload island (docs/performance.md "First paint"): once the page is idle after
 * hydration, or as soon as the user turns to the form it belongs to, so it never competes with the
 * page's own scripts.
 */

/** True once the browser is idle after hydration, or earlier when focus enters the field's form. */
export function useWhenIdleOrFocused(hydrated: boolean, rootRef: React.RefObject<HTMLDivElement | null>): boolean {
  const [wanted, setWanted] = useState(false)
  useEffect(() => {
    if (!hydrated || wanted) return
    const want = () => setWanted(true)
    const form = rootRef.current?.closest('form')
    form?.addEventListener('focusin', want)
    const idle = typeof window.requestIdleCallback === 'function' ? window.requestIdleCallback(want, { timeout: IDLE_TIMEOUT_MS }) : undefined
    const timer = idle === undefined ? window.setTimeout(want, IDLE_TIMEOUT_MS) : undefined
    return () => {
      form?.removeEventListener('focusin', want)
      if (idle !== undefined) window.cancelIdleCallback(idle)
      if (timer !== undefined) window.clearTimeout(timer)
    }
  }, [hydrated, wanted, rootRef])
  return wanted
}

/** However busy the page, the island is fetched by then. */
const IDLE_TIMEOUT_MS = 3000

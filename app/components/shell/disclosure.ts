import { type RefObject, useEffect, useRef } from 'react'
import { useLocation } from 'react-router'

/**
 * The shell's menus are native `<details>`, so they open without JavaScript. With it, a click
 * elsewhere and a navigation close them. Not the first render: on a slow phone a menu tapped open
 * before the page's JavaScript has hydrated stays open (closing it then made the tap come to
 * nothing, and the person tap again).
 */
export function useDismissDisclosure(ref: RefObject<HTMLDetailsElement | null>): void {
  const { key } = useLocation()
  const shownAt = useRef(key)
  useEffect(() => {
    if (shownAt.current === key) return
    shownAt.current = key
    if (ref.current) ref.current.open = false
  }, [key, ref])

  useEffect(() => {
    function onPointerDown(event: PointerEvent) {
      const details = ref.current
      if (details?.open && event.target instanceof Node && !details.contains(event.target)) details.open = false
    }
    document.addEventListener('pointerdown', onPointerDown)
    return () => document.removeEventListener('pointerdown', onPointerDown)
  }, [ref])
}

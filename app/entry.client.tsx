import { startTransition, StrictMode } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { HydratedRouter } from 'react-router/dom'

/**
 * React Router's default client entry, except that hydration waits for the browser's first paint.
 * Module scripts run as soon as the HTML is parsed; on a slow phone hydrating a long page is a
 * task of several hundred milliseconds, and when the scripts arrived before the first frame that
 * task ran first and the page painted later with JavaScript on than off (docs/performance.md
 * "First paint"). The server-rendered page works meanwhile: every form and link is plain HTML.
 */
function hydrate(): void {
  startTransition(() => {
    hydrateRoot(
      document,
      <StrictMode>
        <HydratedRouter />
      </StrictMode>,
    )
  })
}

if (document.visibilityState === 'hidden') {
  // No frames are painted for a hidden page, so there is no first paint to wait for.
  hydrate()
} else {
  // A requestAnimationFrame callback runs just before a frame is painted; a task queued from it runs after.
  requestAnimationFrame(() => setTimeout(hydrate, 0))
}

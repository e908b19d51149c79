import { type ComponentType, createElement, lazy, useState } from 'react'

/**
 * Seconds before each further try of a chunk that did not load; the last repeats. A tab coming back
 * online tries at once.
 */
export const CHUNK_RETRY_DELAYS_MS = [1_000, 2_000, 5_000, 10_000, 30_000] as const

/** Waits before try `attempt` + 1: its delay, or until the browser says it is online again. */
function beforeNextTry(attempt: number): Promise<void> {
  const delay = CHUNK_RETRY_DELAYS_MS[Math.min(attempt, CHUNK_RETRY_DELAYS_MS.length - 1)]
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      window.removeEventListener('online', done)
      resolve()
    }
    const timer = setTimeout(done, delay)
    window.addEventListener('online', done)
  })
}

/**
 * Runs `load` until it succeeds. A chunk that cannot be fetched (a weak connection, a server
 * restarting) is tried again later instead of failing: a failed lazy part would throw to the
 * route's error boundary and replace the whole screen, while a pending one keeps what is there (the
 * server's HTML, or the part's fallback). The browser fetches a failed module again on the next
 * import, so a later try can succeed.
 */
export async function untilLoaded<T>(load: () => Promise<T>, wait: (attempt: number) => Promise<void> = beforeNextTry): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await load()
    } catch {
      await wait(attempt)
    }
  }
}

/** A part in its own chunk: a component, and `ready()`, which starts its fetch and settles when it is here. */
export type LazyPart<P extends object> = ComponentType<P> & { ready: () => Promise<unknown> }

/**
 * React's `lazy` for a component in its own chunk, whose fetch is tried again until it arrives
 * (`untilLoaded`). `fetchNow` starts the fetch just after the module that declares the part is
 * evaluated (in the next task), not when the part first renders: a screen reached by an in-app
 * navigation then fetches the part beside its route module and loader data, and shows it with the
 * rest instead of a moment later.
 *
 * Once the chunk is here the part renders at once. React's `lazy` would suspend for a turn even
 * then, and a screen newly shown by an in-app navigation draws its fallback (nothing) for that
 * moment, so the part popped in under the person's thumb. The choice is kept for the life of the
 * part's instance: switching from the lazy component to the loaded one would remount it and drop
 * what was typed into it.
 */
export function lazyPart<P extends object>(load: () => Promise<ComponentType<P>>, options: { fetchNow?: boolean } = {}): LazyPart<P> {
  let loading: Promise<ComponentType<P>> | undefined
  let loaded: ComponentType<P> | undefined
  const start = () =>
    (loading ??= untilLoaded(load).then((component) => {
      loaded = component
      return component
    }))
  // Not in this task: starting a fetch runs the bundler's preload helper, which inserts a
  // `<link rel="modulepreload">` per dependency of the chunk, and each insertion costs the browser
  // a style update on a full page (10–60 ms for ten on the documents list, without CPU slowdown).
  // At a first load the task is the evaluation of every module of the screen, one long task before
  // hydration; a task of its own keeps it short (docs/performance.md "First paint", the note of
  // 2026-12-02, fifth session). `ready()` still starts the fetch at once, as an in-app navigation wants.
  if (options.fetchNow) setTimeout(() => void start(), 0)
  const Lazy = lazy(async () => ({ default: await start() }))
  function Part(props: P) {
    const [Component] = useState<ComponentType<P>>(() => loaded ?? Lazy)
    return createElement(Component, props)
  }
  return Object.assign(Part, { ready: start })
}

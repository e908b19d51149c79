import { type ComponentType, Suspense } from 'react'
import { lazyPart } from './lazy-part'

/** A deferred part; `ready()` settles when its chunk is here (at once on the server). */
export type DeferredPart<P extends object> = ComponentType<P> & { ready: () => Promise<unknown> }

/**
 * A part of a screen whose script is not in the screen's first load (issue 37, docs/performance.md
 * "JavaScript at first load"): a form below the screen's content (upload, new folder, respond),
 * whose library (conform) no other part of the screen needs.
 *
 * The server renders it in full, in a Suspense boundary, so the HTML, the first paint and the form
 * without JavaScript are as before. In the browser the boundary stays server-rendered HTML while its
 * chunk loads (React's selective hydration: the rest of the screen hydrates without waiting), then
 * hydrates; a submit before that is an ordinary form post, which every form here handles. A chunk
 * that cannot be fetched is tried again (`lazyPart`), the HTML staying in place meanwhile. Its fetch
 * starts when the screen's module is evaluated, so after a client-side navigation the part arrives
 * with the screen's data rather than after it; the module's `await partsBeforeNavigation(...)`
 * holds the screen back until it has (`tests/e2e/smoke.test.ts` holds a chunk back to check it).
 *
 * A screen must not re-render its deferred parts urgently before they have hydrated: React then
 * cannot wait for the chunk and draws the part anew instead, dropping its server HTML and what the
 * person typed into it (a screen that calls `useHydrated()` itself re-renders as it hydrates: put
 * what needs it in a child component, as the item page's outbox does). `tests/e2e/smoke.test.ts`
 * holds a form's chunk back to check it.
 *
 * `onServer` is the component itself for the server build and `undefined` in the browser's
 * (`import.meta.env.SSR ? Component : undefined`), so the browser bundle keeps only the dynamic import.
 * `fetchNow: false` is for a part a screen seldom shows (the job form of an export too large to
 * stream): its chunk is fetched only when the part is rendered.
 */
export function deferred<P extends object>(load: () => Promise<ComponentType<P>>, onServer: ComponentType<P> | undefined, options: { fetchNow?: boolean } = {}): DeferredPart<P> {
  if (onServer) return Object.assign(inSuspense(onServer), { ready: () => Promise.resolve() })
  const part = lazyPart(load, { fetchNow: options.fetchNow ?? true })
  return Object.assign(inSuspense(part), { ready: part.ready })
}

function inSuspense<P extends object>(Part: ComponentType<P>): ComponentType<P> {
  function Deferred(props: P) {
    return (
      <Suspense fallback={null}>
        <Part {...props} />
      </Suspense>
    )
  }
  return Deferred
}

/** How long an in-app navigation waits for a screen's parts before it shows the screen without them. */
export const PART_WAIT_MS = 3_000

let hydrated = false

/**
 * Called once the page has hydrated (`app/root.tsx`): later route modules are reached by in-app
 * navigations. The `hydrated` performance mark says when (the paint bench reads it).
 */
export function markHydrated(): void {
  if (!hydrated) performance.mark('hydrated')
  hydrated = true
}

/**
 * For the top level of a module that declares deferred parts: when the module is first evaluated by
 * an in-app navigation (after hydration), its evaluation waits until the parts' chunks are here, at
 * most `PART_WAIT_MS`. React Router awaits the route module with the loader data, so the screen is
 * drawn with its forms in place instead of drawing them a moment later under the person's thumb.
 * At the first load (server HTML, selective hydration) it waits for nothing. A part fetched only
 * when rendered (`fetchNow: false`) does not belong here.
 */
export async function partsBeforeNavigation(...parts: ReadonlyArray<{ ready: () => Promise<unknown> }>): Promise<void> {
  if (import.meta.env.SSR || !hydrated) return
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, PART_WAIT_MS)))
  await Promise.race([Promise.all(parts.map((part) => part.ready())), timeout])
  clearTimeout(timer)
}

import { type ComponentType, Suspense } from 'react'
import { lazyPart } from './lazy-part'

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
 * with the screen's data rather than after it.
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
export function deferred<P extends object>(load: () => Promise<ComponentType<P>>, onServer: ComponentType<P> | undefined, options: { fetchNow?: boolean } = {}): ComponentType<P> {
  const Part = onServer ?? lazyPart(load, { fetchNow: options.fetchNow ?? true })
  function Deferred(props: P) {
    return (
      <Suspense fallback={null}>
        <Part {...props} />
      </Suspense>
    )
  }
  return Deferred
}

import { useEffect, useState } from 'react'
import { cx } from '~/components/ui/class-names'
import { HeaderStatus } from '~/components/ui/header-status'
import { useHydrated } from '~/components/ui/use-hydrated'
import { FORGET_KEY } from './forget-key'
import type { Owner } from './local-copy'
import type { SyncSnapshotState } from './sync-client'
import type * as SyncChunk from './sync'
import { signOutQuestion, syncText } from './sync-text'

type SyncModule = typeof SyncChunk

/**
 * A response sent with no connection, on a page the field-mode worker controls: the app's own form
 * handling would fail, so the browser posts the form and the worker keeps the response in the
 * outbox. Listening from hydration on, not from when the sync chunk starts (once the page is idle,
 * up to 3 s later on a busy phone): a response sent in those first seconds went to the app's
 * handling and failed.
 */
function respondOffline(event: SubmitEvent) {
  if (navigator.onLine || !navigator.serviceWorker?.controller) return
  if (event.target instanceof HTMLFormElement && event.submitter?.getAttribute('value') === 'respond') event.stopPropagation()
}

/** However busy the page, sync starts by then. */
const START_TIMEOUT_MS = 3000

/**
 * The shell's sync status; it also starts the tab's sync, after the page is idle, only when mobile
 * sync is on for the session (spec §4): with it off nothing of sync is fetched. Signing out from
 * this device marks its copy for deletion. Nothing without JavaScript.
 */
export function SyncIndicator({ owner, enabled, locale }: { owner: Owner; enabled: boolean; locale: string }) {
  const hydrated = useHydrated()
  const [state, setState] = useState<SyncSnapshotState | null>(null)
  const [now, setNow] = useState(() => Date.now())
  const { userId, tenantId } = owner

  useEffect(() => {
    if (!enabled) {
      // Turned off since this browser last had it: the field-mode worker goes.
      if (navigator.serviceWorker?.controller) void import('./field-mode').then(({ stopFieldMode }) => stopFieldMode())
      return
    }
    let cancelled = false
    let off: (() => void) | undefined
    let sync: SyncModule | undefined
    const start = () => {
      void import('./sync').then((module) => {
        if (cancelled) return
        sync = module
        const client = module.startSync({ userId, tenantId })
        setState(client.getSnapshot())
        off = client.subscribe(() => setState(client.getSnapshot()))
      })
    }
    const idle = typeof window.requestIdleCallback === 'function' ? window.requestIdleCallback(start, { timeout: START_TIMEOUT_MS }) : undefined
    const timer = idle === undefined ? window.setTimeout(start, START_TIMEOUT_MS) : undefined
    // Sign-out from this device: with responses not sent yet, ask first; then remember whose copy
    // and outbox to delete (the login page does it).
    const onSubmit = (event: SubmitEvent) => {
      const form = event.target
      if (!(form instanceof HTMLFormElement) || new URL(form.action, window.location.href).pathname !== '/auth/logout') return
      const unsent = sync?.outboxPending() ?? 0
      if (unsent > 0 && !window.confirm(signOutQuestion(unsent))) {
        event.preventDefault()
        event.stopPropagation()
        return
      }
      window.localStorage.setItem(FORGET_KEY, JSON.stringify({ userId, tenantId }))
    }
    document.addEventListener('submit', onSubmit, true)
    window.addEventListener('submit', respondOffline, true)
    return () => {
      cancelled = true
      if (idle !== undefined) window.cancelIdleCallback(idle)
      if (timer !== undefined) window.clearTimeout(timer)
      document.removeEventListener('submit', onSubmit, true)
      window.removeEventListener('submit', respondOffline, true)
      off?.()
      void import('./sync').then(({ stopSync }) => stopSync())
    }
  }, [enabled, userId, tenantId])

  // The retry countdown moves on while sync is paused.
  useEffect(() => {
    if (state?.status !== 'failed') return
    const tick = window.setInterval(() => setNow(Date.now()), 1000)
    return () => window.clearInterval(tick)
  }, [state?.status])

  if (!hydrated || !enabled || !state) return null
  const text = syncText(state, now, (iso) => new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit' }).format(new Date(iso)))
  const mark = cx('rounded-sm', state.status === 'failed' || state.revoked ? 'bg-warning' : 'bg-primary')
  return <HeaderStatus text={text} mark={mark} data={{ 'data-sync-status': state.status }} />
}

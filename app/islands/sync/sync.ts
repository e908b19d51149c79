import { realtime } from '~/islands/realtime/realtime'
import { browserClientId, createBrowserApi } from '~/lib/api/browser'
import { startFieldMode } from './field-mode'
import { clearLocalCopy, openLocalCopy, type Owner } from './local-copy'
import { SYNC_POLL_MS, SyncClient } from './sync-client'

/** After a burst of live changes, pull once this long after the last. */
const REALTIME_DEBOUNCE_MS = 1000

let client: SyncClient | undefined
let unwatch: (() => void) | undefined
let stopField: (() => void) | undefined

export { onOutboxChanged, outboxPending } from './field-mode'

/**
 * The tab's sync (its own chunk: the shell imports it only when mobile sync is on). Pulls on start,
 * on an EntityChanged from the hub while connected, when the tab comes back online or visible, and
 * every minute otherwise. Field mode (the service worker and the outbox) starts with it.
 */
export function startSync(owner: Owner): SyncClient {
  client ??= new SyncClient({ api: createBrowserApi(), openCopy: openLocalCopy, clearCopy: clearLocalCopy, deviceId: browserClientId() })
  void client.start(owner)
  unwatch ??= watch(client)
  stopField ??= startFieldMode(owner)
  return client
}

export function stopSync(): void {
  unwatch?.()
  unwatch = undefined
  stopField?.()
  stopField = undefined
  void client?.stop()
}

function watch(sync: SyncClient): () => void {
  let debounce: ReturnType<typeof setTimeout> | undefined
  const onChange = realtime.onEntityChanged(() => {
    clearTimeout(debounce)
    debounce = setTimeout(() => sync.pull('realtime'), REALTIME_DEBOUNCE_MS)
  })
  // Back from a reconnect: whatever was announced while away was missed, so pull.
  let wasConnected = realtime.getSnapshot().status === 'connected'
  const offStatus = realtime.subscribe(() => {
    const connected = realtime.getSnapshot().status === 'connected'
    if (connected && !wasConnected) sync.pull('realtime')
    wasConnected = connected
  })
  const online = () => sync.pull('online')
  const visible = () => {
    if (document.visibilityState === 'visible') sync.pull('visible')
  }
  window.addEventListener('online', online)
  document.addEventListener('visibilitychange', visible)
  const timer = setInterval(() => {
    // The live connection brings changes as they happen; without it, poll.
    if (realtime.getSnapshot().status !== 'connected' && document.visibilityState === 'visible') sync.pull('timer')
  }, SYNC_POLL_MS)
  return () => {
    onChange()
    offStatus()
    clearTimeout(debounce)
    clearInterval(timer)
    window.removeEventListener('online', online)
    document.removeEventListener('visibilitychange', visible)
  }
}

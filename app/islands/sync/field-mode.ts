import { browserClientId } from '~/lib/api/browser'
import { SERVICE_WORKER_PATH, type FieldMessage, type WorkerMessage } from './field-messages'
import type { Owner } from './local-copy'
import { withOutbox } from './outbox'

/**
 * The page's side of field mode (issue 10, decision 009), part of the sync chunk: registers the
 * service worker, tells it who is signed in, asks it to send the outbox when the connection is
 * back, and keeps the number of unsent responses at hand for the sign-out question. A respond form
 * submitted with no connection goes as a plain form post, which the worker keeps: the shell lets it
 * through (app/islands/sync/sync-indicator.tsx), from the moment the page hydrates.
 */

let pending = 0
const listeners = new Set<(itemIds: string[]) => void>()

/** Responses on this device not sent yet (waiting or refused), as last counted. */
export function outboxPending(): number {
  return pending
}

/** Calls back when the outbox changed (for these items); returns the unsubscribe. */
export function onOutboxChanged(listener: (itemIds: string[]) => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

export function startFieldMode(owner: Owner): () => void {
  if (!('serviceWorker' in navigator)) return () => undefined
  const container = navigator.serviceWorker
  const recount = async (itemIds: string[]) => {
    pending = await withOutbox(owner, (outbox) => outbox.unsent()).catch(() => pending)
    for (const listener of listeners) listener(itemIds)
  }
  const onMessage = (event: MessageEvent) => {
    const message = event.data as WorkerMessage
    if (message?.type === 'outbox-changed') void recount(message.itemIds)
  }
  const online = () => void post({ type: 'flush' })
  container.addEventListener('message', onMessage)
  window.addEventListener('online', online)
  void (async () => {
    await container.register(SERVICE_WORKER_PATH, { scope: '/' }).catch(() => undefined)
    await post({ type: 'owner', owner, clientId: browserClientId() })
    await recount([])
  })()
  return () => {
    container.removeEventListener('message', onMessage)
    window.removeEventListener('online', online)
  }
}

/** Sends a message to the active worker once there is one. */
async function post(message: FieldMessage): Promise<void> {
  const registration = await navigator.serviceWorker.ready
  registration.active?.postMessage(message)
}

/** Mobile sync is off for this session: a worker left from when it was on goes. */
export async function stopFieldMode(): Promise<void> {
  if (!('serviceWorker' in navigator)) return
  const registration = await navigator.serviceWorker.getRegistration('/')
  if (registration?.active?.scriptURL.endsWith(SERVICE_WORKER_PATH)) await registration.unregister()
}

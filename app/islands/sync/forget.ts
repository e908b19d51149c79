import type { FieldMessage } from './field-messages'
import { clearLocalCopy, type Owner } from './local-copy'
import { clearOutbox } from './outbox'
import { FORGET_KEY } from './forget-key'

/** Deletes the offline copy and the outbox of whoever signed out from this device (marked by SyncIndicator), once. */
export async function forgetSignedOut(): Promise<void> {
  const marked = window.localStorage.getItem(FORGET_KEY)
  if (!marked) return
  try {
    const owner = JSON.parse(marked) as Owner
    if (typeof owner.userId === 'string' && typeof owner.tenantId === 'string') await Promise.all([clearLocalCopy(owner), clearOutbox(owner)])
    const forget: FieldMessage = { type: 'forget' }
    navigator.serviceWorker?.controller?.postMessage(forget)
  } finally {
    window.localStorage.removeItem(FORGET_KEY)
  }
}

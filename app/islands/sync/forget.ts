import { clearLocalCopy, type Owner } from './local-copy'
import { FORGET_KEY } from './forget-key'

/** Deletes the copy of whoever signed out from this device (marked by SyncIndicator), once. */
export async function forgetSignedOut(): Promise<void> {
  const marked = window.localStorage.getItem(FORGET_KEY)
  if (!marked) return
  try {
    const owner = JSON.parse(marked) as Owner
    if (typeof owner.userId === 'string' && typeof owner.tenantId === 'string') await clearLocalCopy(owner)
  } finally {
    window.localStorage.removeItem(FORGET_KEY)
  }
}

import type { SyncSnapshotState } from './sync-client'

/** The shell's words for the sync state (docs/site-reporting.md "The sync island"). */
export function syncText(state: SyncSnapshotState, now: number, time: (iso: string) => string): string {
  if (state.revoked) return 'Sync off: this device was signed out'
  if (state.status === 'loading') return state.lastSyncedAt ? 'Syncing…' : 'Downloading for offline use…'
  if (state.status === 'failed') {
    const seconds = state.retryAt === undefined ? undefined : Math.max(1, Math.ceil((state.retryAt - now) / 1000))
    return seconds === undefined ? 'Sync paused' : `Sync paused — retrying in ${seconds} s`
  }
  if (state.lastSyncedAt) return `Synced ${time(state.lastSyncedAt)}`
  return ''
}

/** Asked before signing out with responses on this device that were not sent (field mode). */
export function signOutQuestion(unsent: number): string {
  const what = unsent === 1 ? '1 response that was not sent' : `${unsent} responses that were not sent`
  return `This device has ${what}. Signing out deletes them. Sign out anyway?`
}

/** Field mode's words, shared by the item page and the service worker's offline pages. */
export const OFFLINE_BANNER = 'Offline copy, last synced'
export const WAITING_TO_SEND = 'Waiting to send'

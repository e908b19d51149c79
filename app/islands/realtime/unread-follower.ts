import type { NotificationsChanged } from '~/lib/notifications'

/** The part of the hub's client the bell follows (app/islands/realtime/realtime-client.ts). */
export type UnreadSource = {
  onConnected(listener: () => void): () => void
  onNotificationsChanged(listener: (changed: NotificationsChanged) => void): () => void
}

/**
 * The bell's live unread count: the hub's NotificationsChanged as they come, and the count read
 * again (GET /api/notifications/unread-count) every time the connection is up, because what the hub
 * sent while it was down never arrives. A count read while a newer NotificationsChanged came in is
 * dropped: the hub's is newer. Returns the function that stops following.
 */
export function followUnread(source: UnreadSource, read: () => Promise<number | null>, show: (unread: number) => void): () => void {
  let heard = 0
  let stopped = false
  const stopConnected = source.onConnected(() => {
    const before = heard
    void read().then(
      (unread) => {
        if (!stopped && unread !== null && heard === before) show(unread)
      },
      () => undefined,
    )
  })
  const stopChanged = source.onNotificationsChanged((changed) => {
    heard += 1
    if (!stopped) show(changed.unread)
  })
  return () => {
    stopped = true
    stopConnected()
    stopChanged()
  }
}

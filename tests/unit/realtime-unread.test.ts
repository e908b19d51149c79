import * as signalR from '@microsoft/signalr'
import { expect, onTestFinished, test } from 'vitest'
import { RealtimeClient } from '~/islands/realtime/realtime-client'
import { followUnread } from '~/islands/realtime/unread-follower'
import { NOTIFICATIONS_CHANGED_EVENT } from '~/lib/notifications'
import { startFakeHub } from './realtime-fake-hub'

/** The bell's count after the hub comes back (docs/settings-appearance-notifications.md "In-app notifications"), on the real SignalR client. */

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 4_000
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

async function connected() {
  const hub = await startFakeHub()
  onTestFinished(() => hub.close())
  const realtime = new RealtimeClient({ url: hub.url, loadSignalR: async () => signalR, reconnectDelaysMs: [0, 20, 50], retryEveryMs: 60_000, hasWebSocket: true })
  onTestFinished(() => realtime.stop())
  return { hub, realtime }
}

test('the count is read when the hub connects and again after every reconnect; what the hub says in between is shown', async () => {
  const { hub, realtime } = await connected()
  // The server's count, as GET /api/notifications/unread-count would answer it.
  let server = 2
  let reads = 0
  const shown: number[] = []
  const stop = followUnread(
    realtime,
    async () => {
      reads += 1
      return server
    },
    (unread) => shown.push(unread),
  )
  realtime.start()
  await until(() => shown.length === 1, 'the first read')
  expect(shown).toEqual([2])

  hub.broadcast(NOTIFICATIONS_CHANGED_EVENT, { unread: 3 })
  await until(() => shown.length === 2, 'NotificationsChanged')
  expect(shown).toEqual([2, 3])

  // Down: two notifications arrive and one is read elsewhere; the hub's events for them are lost.
  server = 4
  hub.closeAll({ allowReconnect: true })
  await until(() => shown.length === 3, 'the count read again after the reconnect')
  expect(shown).toEqual([2, 3, 4])
  expect(reads).toBe(2)
  expect(realtime.getSnapshot()).toEqual({ status: 'connected', hadConnection: true })

  stop()
  server = 9
  hub.closeAll({ allowReconnect: true })
  await until(() => realtime.getSnapshot().status === 'connected' && hub.connections() === 1, 'connected again')
  hub.broadcast(NOTIFICATIONS_CHANGED_EVENT, { unread: 10 })
  await new Promise((resolve) => setTimeout(resolve, 50))
  expect(shown).toEqual([2, 3, 4])
})

test('a count read while a newer NotificationsChanged arrived is dropped; a failed read changes nothing', async () => {
  const listeners: { connected?: () => void; changed?: (c: { unread: number }) => void } = {}
  const source = {
    onConnected: (l: () => void) => ((listeners.connected = l), () => undefined),
    onNotificationsChanged: (l: (c: { unread: number }) => void) => ((listeners.changed = l), () => undefined),
  }
  let answer: (n: number | null) => void = () => undefined
  const shown: number[] = []
  followUnread(source, () => new Promise<number | null>((resolve) => (answer = resolve)), (n) => shown.push(n))
  listeners.connected?.()
  listeners.changed?.({ unread: 5 })
  answer(4)
  await new Promise((resolve) => setTimeout(resolve, 0))
  expect(shown).toEqual([5])

  listeners.connected?.()
  answer(null)
  await new Promise((resolve) => setTimeout(resolve, 0))
  expect(shown).toEqual([5])
  listeners.connected?.()
  answer(6)
  await new Promise((resolve) => setTimeout(resolve, 0))
  expect(shown).toEqual([5, 6])
})

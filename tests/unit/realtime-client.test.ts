import { createServer } from 'node:net'
import { expect, onTestFinished, test } from 'vitest'
import * as signalR from '@microsoft/signalr'
import { RealtimeClient, type RealtimeClientOptions, type RoomHandlers } from '~/islands/realtime/realtime-client'
import type { RealtimeStatus } from '~/lib/realtime/events'
import type { EntityChanged, JoinedRoom, RoomMessage } from '~/lib/realtime/events'
import { startFakeHub, type FakeHub } from './realtime-fake-hub'

const ROOM = 'item:00000000-0000-4000-8000-000000000001'

/** The island's connection logic on the real @microsoft/signalr client, with short delays. */
function client(url: string, options: Partial<RealtimeClientOptions> = {}) {
  const realtime = new RealtimeClient({
    url,
    loadSignalR: async () => signalR,
    reconnectDelaysMs: [0, 20, 50],
    retryEveryMs: 60_000,
    hasWebSocket: true,
    ...options,
  })
  const seen: RealtimeStatus[] = [realtime.getSnapshot().status]
  realtime.subscribe(() => {
    seen.push(realtime.getSnapshot().status)
  })
  onTestFinished(() => realtime.stop())
  return { realtime, seen }
}

async function hub(): Promise<FakeHub> {
  const started = await startFakeHub()
  onTestFinished(() => started.close())
  return started
}

/** Waits for a condition; the bound is for a stuck machine, not a timing expectation. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 4_000
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

function roomRecorder() {
  const joined: JoinedRoom[] = []
  const messages: RoomMessage[] = []
  const refusals: Array<string | undefined> = []
  const handlers: RoomHandlers = {
    joined: (j) => {
      joined.push(j)
    },
    refused: (reason) => {
      refusals.push(reason)
    },
    message: (m) => {
      messages.push(m)
    },
    presence: () => {},
  }
  return { handlers, joined, messages, refusals }
}

test('connects, hears EntityChanged, and after a server restart (Close with allowReconnect) reconnects and joins its rooms again', async () => {
  const server = await hub()
  const { realtime, seen } = client(server.url)
  const room = roomRecorder()
  const leave = realtime.joinRoom(ROOM, room.handlers)
  const changes: EntityChanged[] = []
  realtime.onEntityChanged((change) => {
    changes.push(change)
  })

  realtime.start()
  await until(() => realtime.getSnapshot().status === 'connected', 'the first connection')
  await until(() => room.joined.length === 1, 'the room joined')
  expect(seen).toEqual(['idle', 'connecting', 'connected'])

  const change: EntityChanged = {
    entityType: 'ReportItem',
    entityId: 'i1',
    changeType: 'Updated',
    revision: 7,
    changedAt: '2026-01-01T10:00:00Z',
    changedBy: { userId: 'u-alex', displayName: 'Alex Admin' },
  }
  server.broadcast('EntityChanged', change)
  await until(() => changes.length === 1, 'the change')
  expect(changes[0]).toEqual(change)

  server.closeAll({ allowReconnect: true })
  await until(() => room.joined.length === 2, 'the room joined again after the reconnect')
  expect(realtime.getSnapshot()).toEqual({ status: 'connected', hadConnection: true })
  expect(seen).toEqual(['idle', 'connecting', 'connected', 'reconnecting', 'connected'])
  expect(server.calls.filter((c) => c.startsWith('JoinRoom'))).toEqual([`JoinRoom("${ROOM}")`, `JoinRoom("${ROOM}")`])

  leave()
  await until(() => server.calls.includes(`LeaveRoom("${ROOM}")`), 'LeaveRoom')
})

test('a sent message comes back as the result and as ReceiveMessage; a refusal carries the hub’s sentence', async () => {
  const server = await hub()
  const { realtime } = client(server.url)
  const room = roomRecorder()
  realtime.joinRoom(ROOM, room.handlers)
  realtime.start()
  await until(() => room.joined.length === 1, 'the room joined')

  const sent = await realtime.sendMessage(ROOM, 'Scaffold is down on level 3')
  await until(() => room.messages.length === 1, 'ReceiveMessage')
  expect(room.messages[0]?.id).toBe(sent.id)

  const refused = await realtime.sendMessage(ROOM, '   ').catch((error: unknown) => error)
  expect(refused).toBeInstanceOf(Error)
  expect((refused as Error).message).toContain('HubException: A message needs some text.')

  const other = roomRecorder()
  realtime.joinRoom('report:00000000-0000-4000-8000-000000000002', other.handlers)
  await until(() => other.refusals.length === 1, 'the refused join')
  expect(other.refusals).toEqual(['You cannot open this discussion.'])
})

test('after the reconnect delays run out it gives up; a refusing hub is an error that the user’s return retries', async () => {
  const server = await hub()
  const { realtime, seen } = client(server.url, { retryEveryMs: 50 })
  realtime.start()
  await until(() => realtime.getSnapshot().status === 'connected', 'the first connection')

  // The hub is gone from this address: every reconnect attempt is answered 404.
  server.negotiate = 404
  server.dropAll()
  await until(() => realtime.getSnapshot().status === 'error', 'giving up')
  expect(seen).toEqual(['idle', 'connecting', 'connected', 'reconnecting', 'error'])
  // The first connect and one attempt per delay (0, 20, 50 ms).
  expect(server.negotiations).toBe(4)
  // An error is not retried by the timer…
  await new Promise((resolve) => setTimeout(resolve, 200))
  expect(server.negotiations).toBe(4)

  // …but when the user comes back (online, tab visible).
  server.negotiate = 'ok'
  realtime.retry('return')
  await until(() => realtime.getSnapshot().status === 'connected', 'the connection back after a return')
})

test('a 401 while reconnecting stops at once: disabled, and not retried by the timer', async () => {
  const server = await hub()
  const { realtime, seen } = client(server.url, { retryEveryMs: 50 })
  realtime.start()
  await until(() => realtime.getSnapshot().status === 'connected', 'the first connection')
  server.negotiate = 401
  server.dropAll()
  await until(() => realtime.getSnapshot().status === 'disabled', 'the 401')
  expect(seen).toEqual(['idle', 'connecting', 'connected', 'reconnecting', 'disabled'])
  expect(server.negotiations).toBe(2)
  await new Promise((resolve) => setTimeout(resolve, 200))
  expect(server.negotiations).toBe(2)
})

test('a first connect to a hub that is not up yet is disconnected, and the timer brings it up once it answers', async () => {
  const port = await closedPort()
  const { realtime, seen } = client(`http://127.0.0.1:${port}/hub/realtime`, { retryEveryMs: 50 })
  realtime.start()
  await until(() => realtime.getSnapshot().status === 'disconnected', 'the failed first connect')
  expect(realtime.getSnapshot().hadConnection).toBe(false)

  const server = await startFakeHub({ port })
  onTestFinished(() => server.close())
  await until(() => realtime.getSnapshot().status === 'connected', 'the timer’s retry')
  expect(seen.slice(0, 3)).toEqual(['idle', 'connecting', 'disconnected'])
})

test('a dropped socket (no Close: a crash, a lost network) reconnects by itself', async () => {
  const server = await hub()
  const { realtime, seen } = client(server.url)
  realtime.start()
  await until(() => realtime.getSnapshot().status === 'connected', 'the first connection')
  server.dropAll()
  await until(() => seen.length === 5 && server.connections() === 1, 'the automatic reconnect')
  expect(seen).toEqual(['idle', 'connecting', 'connected', 'reconnecting', 'connected'])
})

test('a Close without allowReconnect stops the client for good: error, Offline', async () => {
  const server = await hub()
  const { realtime } = client(server.url)
  realtime.start()
  await until(() => realtime.getSnapshot().status === 'connected', 'the first connection')
  server.closeAll({ allowReconnect: false, error: 'Connection closed with an error.' })
  await until(() => realtime.getSnapshot().status === 'error', 'the error status')
})

test('no WebSocket: disabled, and nothing is loaded', async () => {
  let loaded = false
  const { realtime } = client('http://127.0.0.1:9/hub/realtime', {
    hasWebSocket: false,
    loadSignalR: async () => {
      loaded = true
      return signalR
    },
  })
  realtime.start()
  expect(realtime.getSnapshot().status).toBe('disabled')
  expect(loaded).toBe(false)
})

test('stopping while connected returns to idle, and a later start connects again', async () => {
  const server = await hub()
  const { realtime, seen } = client(server.url)
  realtime.start()
  await until(() => realtime.getSnapshot().status === 'connected', 'the first connection')
  await realtime.stop()
  expect(realtime.getSnapshot().status).toBe('idle')
  await until(() => server.connections() === 0, 'the socket closed')
  realtime.start()
  await until(() => realtime.getSnapshot().status === 'connected', 'the second connection')
  expect(seen).toEqual(['idle', 'connecting', 'connected', 'idle', 'connecting', 'connected'])
})

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

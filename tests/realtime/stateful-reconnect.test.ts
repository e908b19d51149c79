import { expect, test } from 'vitest'
import { client, eventually, startHub } from './hub-server'

test('stateful reconnect: a dropped socket loses nothing and duplicates nothing, both ways', async () => {
  const server = await startHub()
  const alice = client(server.url, { stateful: true })
  const received: number[] = []
  alice.on('Receive', (n: number) => {
    received.push(n)
  })
  let reconnecting = 0
  alice.onreconnecting(() => {
    reconnecting++
  })
  await alice.start()
  const id = alice.connectionId as string
  await alice.invoke('Join', 'g')
  const total = 300
  let sent = 0
  // The server sends to the group (and thus to alice) while alice sends to the server.
  const serverSide = (async () => {
    for (let n = 1; n <= total; n++) {
      await server.hub.sendToGroup('g', 'Receive', [n])
      if (n % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 5))
    }
  })()
  const clientSide = (async () => {
    for (let n = 1; n <= total; n++) {
      await alice.send('Record', n)
      sent = n
      if (n % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 5))
    }
  })()
  await eventually(() => sent >= 50 && received.length >= 50)
  server.sockets.at(-1)?.destroy()
  await eventually(() => sent >= 150)
  server.sockets.at(-1)?.destroy()
  await Promise.all([serverSide, clientSide])
  await eventually(() => received.length >= total && (server.recorded.get(id)?.length ?? 0) >= total, 10_000)
  const expected = Array.from({ length: total }, (_, i) => i + 1)
  expect(received).toEqual(expected)
  expect(server.recorded.get(id)).toEqual(expected)
  // Same connection throughout: no new negotiate, no automatic reconnect, one onConnected.
  expect(alice.connectionId).toBe(id)
  expect(reconnecting).toBe(0)
  expect(server.connected).toHaveLength(1)
  expect(server.sockets.length).toBeGreaterThanOrEqual(3)
  expect(await alice.invoke('Echo', 'still the same connection')).toBe('still the same connection')
  await alice.stop()
  await eventually(() => server.hub.stats().connections === 0)
  expect(server.hub.stats().groups).toBe(0)
  await server.close()
})

test('stateful reconnect: a connection whose client never comes back ends after the grace period', async () => {
  const server = await startHub({
    timings: { keepAliveMs: 250, clientTimeoutMs: 1500, handshakeTimeoutMs: 1000, statefulGraceMs: 300, tokenTtlMs: 10_000, longPollMs: 1000 },
  })
  const { rawSocket, negotiate, RS } = await import('./hub-server')
  const token = String((await negotiate(server.url, 'negotiateVersion=1&useStatefulReconnect=true')).connectionToken)
  const raw = await rawSocket(server.url, { id: token, handshake: false })
  raw.send(`{"protocol":"json","version":2}${RS}`)
  await raw.waitFor(`{}${RS}`)
  await eventually(() => server.connected.length === 1)
  const id = server.connected[0]?.id as string
  await server.hub.addToGroup(id, 'g')
  raw.ws.terminate()
  // Detached, not gone: still counted, still in its group, messages are kept for it.
  await new Promise((resolve) => setTimeout(resolve, 100))
  expect(server.hub.stats()).toEqual({ connections: 1, groups: 1 })
  expect(server.disconnected).toHaveLength(0)
  await eventually(() => server.disconnected.length === 1)
  expect(server.hub.stats()).toEqual({ connections: 0, groups: 0 })
  await server.close()
})

test('stateful reconnect over a raw socket: our Sequence, then the replay; re-sent client messages are dropped', async () => {
  const server = await startHub()
  const { rawSocket, negotiate, RS } = await import('./hub-server')
  const token = String((await negotiate(server.url, 'negotiateVersion=1&useStatefulReconnect=true')).connectionToken)
  const first = await rawSocket(server.url, { id: token, handshake: false })
  first.send(`{"protocol":"json","version":2}${RS}`)
  first.send(`{"type":1,"target":"Record","arguments":[1]}${RS}{"type":1,"invocationId":"a","target":"Echo","arguments":["one"]}${RS}`)
  await first.waitFor('"result":"one"')
  // The Ack for our two messages comes within about a second.
  await first.waitFor(`{"type":8,"sequenceId":2}${RS}`)
  first.ws.terminate()
  await eventually(() => server.connected.length === 1)
  const id = server.connected[0]?.id as string
  server.hub.sendToConnection(id, 'Receive', ['while away'])
  const second = await rawSocket(server.url, { id: token, handshake: false })
  // The client replays from 1: both are dropped as already processed; 3 is new.
  second.send(`{"type":9,"sequenceId":1}${RS}`)
  second.send(`{"type":1,"target":"Record","arguments":[1]}${RS}{"type":1,"invocationId":"a","target":"Echo","arguments":["one"]}${RS}`)
  second.send(`{"type":1,"target":"Record","arguments":[3]}${RS}`)
  // Nothing acknowledged by the client yet: our Sequence starts at 1 (the Completion), then the replay.
  await second.waitFor('while away')
  expect(second.received.join('')).toBe(
    `{"type":9,"sequenceId":1}${RS}{"type":3,"invocationId":"a","result":"one"}${RS}{"type":1,"target":"Receive","arguments":["while away"]}${RS}`,
  )
  await eventually(() => server.recorded.get(id)?.length === 2)
  expect(server.recorded.get(id)).toEqual([1, 3])
  second.ws.close()
  await server.close()
})

import { expect, test } from 'vitest'
import { client, eventually, startHub } from './hub-server'

test('shutdown() (a server restart): the official client reconnects by itself to a new hub on the same port', async () => {
  const first = await startHub()
  const alice = client(first.url, { reconnectDelays: [0, 100, 100, 100, 100, 100, 100, 100, 100, 100] })
  const states: string[] = []
  alice.onreconnecting(() => {
    states.push('reconnecting')
  })
  alice.onreconnected(() => {
    states.push('reconnected')
  })
  await alice.start()
  const before = alice.connectionId
  await first.close()
  expect(first.hub.stats()).toEqual({ connections: 0, groups: 0 })
  expect(first.disconnected.map((c) => c.id)).toEqual([before])
  const second = await startHub({}, first.port)
  await eventually(() => states.includes('reconnected'))
  expect(alice.connectionId).not.toBe(before)
  expect(await alice.invoke('Echo', 'back')).toBe('back')
  await alice.stop()
  await second.close()
})

test('closeConnection without allowReconnect stops the client for good; with it the client reconnects', async () => {
  const server = await startHub()
  const alice = client(server.url, { reconnectDelays: [0, 0, 0] })
  const errors: (Error | undefined)[] = []
  let reconnecting = 0
  alice.onclose((error) => {
    errors.push(error)
  })
  alice.onreconnecting(() => {
    reconnecting++
  })
  let reconnected = 0
  alice.onreconnected(() => {
    reconnected++
  })
  await alice.start()
  server.hub.closeConnection(alice.connectionId as string, { allowReconnect: true })
  await eventually(() => reconnected === 1)
  server.hub.closeConnection(alice.connectionId as string, { error: 'Session ended', allowReconnect: false })
  await eventually(() => errors.length === 1)
  expect(errors[0]?.message).toBe('Server returned an error on close: Session ended')
  expect(reconnecting).toBe(1)
  expect(alice.state).toBe('Disconnected')
  await eventually(() => server.hub.stats().connections === 0)
  await server.close()
})

test('onConnected sees the connection before any invocation runs; connections() lists it; groups are the hook’s to join', async () => {
  const order: string[] = []
  const server = await startHub({
    onConnected: async (connection) => {
      await new Promise((resolve) => setTimeout(resolve, 50))
      order.push(`connected ${connection.principal.userId} groups=${connection.groups.size}`)
    },
    onDisconnected: (connection) => {
      order.push(`disconnected groups=${[...connection.groups].join(',')}`)
    },
  })
  const alice = client(server.url)
  await alice.start()
  await alice.invoke('Join', 'room')
  order.push('joined')
  expect([...server.hub.connections()].map((c) => c.id)).toEqual([alice.connectionId])
  await alice.stop()
  await eventually(() => server.hub.stats().connections === 0)
  expect(order).toEqual(['connected alice groups=0', 'joined', 'disconnected groups=room'])
  expect(server.hub.stats().groups).toBe(0)
  await server.close()
})

test('a failing onConnected closes the connection with an error; the client does not reconnect', async () => {
  const server = await startHub({
    onConnected: () => {
      throw new Error('no presence store')
    },
  })
  const alice = client(server.url, { reconnectDelays: [0] })
  let closed: Error | undefined
  alice.onclose((error) => {
    closed = error
  })
  // The Close may reach the client before start() has resolved: then start() rejects with it.
  const failedStart = await alice.start().then(
    () => undefined,
    (error: Error) => error,
  )
  await eventually(() => (failedStart ?? closed) !== undefined)
  expect((failedStart ?? closed)?.message).toBe('Server returned an error on close: Connection closed with an error.')
  expect(alice.state).toBe('Disconnected')
  await server.close()
})

test('many connections come and go: stats back to zero, no groups left', async () => {
  const server = await startHub()
  const clients = Array.from({ length: 20 }, (_, i) => client(server.url, { token: i % 2 ? 'alice-token' : 'bob-token' }))
  await Promise.all(clients.map((c) => c.start()))
  await Promise.all(clients.map((c, i) => c.invoke('Join', `g${i % 3}`)))
  expect(server.hub.stats()).toEqual({ connections: 20, groups: 3 })
  await Promise.all(clients.map((c) => c.stop()))
  await eventually(() => server.hub.stats().connections === 0)
  expect(server.hub.stats()).toEqual({ connections: 0, groups: 0 })
  expect(server.disconnected).toHaveLength(20)
  await server.close()
})

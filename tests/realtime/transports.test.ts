import * as signalR from '@microsoft/signalr'
import { WebSocket } from 'ws'
import { expect, test } from 'vitest'
import { ALLOWED_ORIGIN, client, eventually, negotiate, startHub } from './hub-server'

const transports = [
  ['WebSockets', signalR.HttpTransportType.WebSockets],
  ['ServerSentEvents', signalR.HttpTransportType.ServerSentEvents],
  ['LongPolling', signalR.HttpTransportType.LongPolling],
] as const

for (const [name, transport] of transports) {
  test(`${name}: start, invoke, receive a group send, stop; nothing left behind`, async () => {
    const server = await startHub()
    const alice = client(server.url, { transport })
    const bob = client(server.url, { transport, token: 'bob-token' })
    const received: unknown[] = []
    bob.on('receive', (value: unknown) => {
      received.push(value)
    })
    await alice.start()
    await bob.start()
    expect(alice.connectionId).toBeTruthy()
    expect([...server.hub.connections()].map((c) => c.id).sort()).toEqual([alice.connectionId, bob.connectionId].sort())
    expect(await alice.invoke('Echo', 'hello')).toBe('hello')
    await bob.invoke('join', 'room:1')
    await alice.invoke('Join', 'room:1')
    expect(server.hub.stats()).toEqual({ connections: 2, groups: 1 })
    await alice.invoke('Broadcast', 'room:1', { text: 'hi', n: 1 })
    await eventually(() => received.length === 1)
    expect(received).toEqual([{ text: 'hi', n: 1 }])
    const principal = [...server.hub.connections()].find((c) => c.id === bob.connectionId)?.principal
    expect(principal?.userId).toBe('bob')
    await alice.stop()
    await bob.stop()
    await eventually(() => server.hub.stats().connections === 0)
    expect(server.hub.stats()).toEqual({ connections: 0, groups: 0 })
    expect(server.disconnected.map((c) => c.id).sort()).toEqual(server.connected.map((c) => c.id).sort())
    await server.close()
  })
}

test('skipNegotiation over WebSockets authenticates the upgrade itself', async () => {
  const server = await startHub()
  const alice = client(server.url, { skipNegotiation: true })
  await alice.start()
  expect(await alice.invoke('Echo', 'direct')).toBe('direct')
  expect(server.connected[0]?.principal.userId).toBe('alice')
  await alice.stop()
  const stranger = client(server.url, { skipNegotiation: true, token: 'nobody' })
  await expect(stranger.start()).rejects.toThrow(/WebSocket failed to connect/)
  await server.close()
})

test('sendToGroup reaches members on this instance except the excluded, sendToConnection one connection', async () => {
  const server = await startHub()
  const clients = [client(server.url), client(server.url), client(server.url, { token: 'bob-token' })]
  const got = clients.map(() => [] as unknown[])
  clients.forEach((c, i) =>
    c.on('Receive', (value: unknown) => {
      got[i]?.push(value)
    }),
  )
  for (const c of clients) await c.start()
  await clients[0]?.invoke('Join', 'g')
  await clients[1]?.invoke('Join', 'g')
  await server.hub.sendToGroup('g', 'Receive', ['all'])
  await server.hub.sendToGroup('g', 'Receive', ['not 0'], { exclude: [clients[0]?.connectionId as string] })
  server.hub.sendToConnection(clients[2]?.connectionId as string, 'Receive', ['direct'])
  server.hub.sendToConnection('unknown-id', 'Receive', ['nobody'])
  await eventually(() => got[1]?.length === 2 && got[2]?.length === 1)
  await clients[0]?.invoke('Leave', 'g')
  await server.hub.sendToGroup('g', 'Receive', ['after leave'])
  await eventually(() => got[1]?.length === 3)
  expect(got).toEqual([['all'], ['all', 'not 0', 'after leave'], ['direct']])
  for (const c of clients) await c.stop()
  await eventually(() => server.hub.stats().connections === 0)
  expect(server.hub.stats().groups).toBe(0)
  await server.close()
})

test('a WebSocket upgrade from a disallowed Origin is refused with 403 before switching protocols', async () => {
  const server = await startHub()
  const { connectionToken } = await negotiate(server.url)
  const status = await new Promise<number>((resolve, reject) => {
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}?id=${String(connectionToken)}`, {
      headers: { origin: 'https://evil.example', cookie: 'session=alice-token' },
    })
    ws.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0))
    ws.on('open', () => reject(new Error('upgraded')))
    ws.on('error', () => {})
  })
  expect(status).toBe(403)
  const allowed = new WebSocket(`${server.url.replace('http', 'ws')}?id=${String(connectionToken)}`, { headers: { origin: ALLOWED_ORIGIN } })
  await new Promise((resolve, reject) => {
    allowed.on('open', resolve)
    allowed.on('error', reject)
  })
  allowed.close()
  await server.close()
})

test('a forged, expired or used id answers 404; a second socket for a live id 409; another user 401', async () => {
  let clock = Date.now()
  const server = await startHub({ now: () => clock })
  const ws = (id: string, token = 'alice-token') =>
    new Promise<number>((resolve) => {
      const socket = new WebSocket(`${server.url.replace('http', 'ws')}?id=${id}`, { headers: { authorization: `Bearer ${token}` } })
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0))
      socket.on('open', () => {
        resolve(101)
        socket.close()
      })
      socket.on('error', () => {})
    })
  const token = String((await negotiate(server.url)).connectionToken)
  const [body, signature] = token.split('.')
  const forged = `${Buffer.from(
    Buffer.from(body ?? '', 'base64url')
      .toString()
      .replace('alice', 'bobby'),
  ).toString('base64url')}.${signature}`
  expect(await ws(forged)).toBe(404)
  expect(await ws('not-a-token')).toBe(404)
  expect(await ws(token, 'bob-token')).toBe(401)
  const fetched = await fetch(`${server.url}?id=${forged}`, { method: 'POST', body: 'x' })
  expect(fetched.status).toBe(404)
  expect((await fetch(`${server.url}`, { method: 'POST', body: 'x' })).status).toBe(400)
  const first = new WebSocket(`${server.url.replace('http', 'ws')}?id=${token}`)
  await new Promise((resolve) => first.on('open', resolve))
  expect(await ws(token)).toBe(409)
  first.close()
  await eventually(() => server.hub.stats().connections === 0)
  expect(await ws(token)).toBe(404)
  const later = String((await negotiate(server.url)).connectionToken)
  clock += 11_000
  expect(await ws(later)).toBe(404)
  await server.close()
})

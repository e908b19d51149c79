import * as signalR from '@microsoft/signalr'
import { spawn } from 'node:child_process'
import { request } from 'node:http'
import { WebSocket } from 'ws'
import { expect, test } from 'vitest'
import { client, eventually, negotiate, rawSocket, RS, startHub } from './hub-server'

test('a slow consumer is dropped once its outgoing buffer passes maxBufferedBytes (long polling that stops polling)', async () => {
  const server = await startHub({ maxBufferedBytes: 64 * 1024 })
  const { connectionId, connectionToken } = await negotiate(server.url)
  const url = `${server.url}?id=${String(connectionToken)}`
  expect((await fetch(url)).status).toBe(200)
  expect((await fetch(url, { method: 'POST', body: `{"protocol":"json","version":1}${RS}` })).status).toBe(200)
  await eventually(() => server.connected.length === 1)
  server.hub.sendToConnection(String(connectionId), 'Receive', ['x'.repeat(40 * 1024)])
  expect(server.hub.stats().connections).toBe(1)
  server.hub.sendToConnection(String(connectionId), 'Receive', ['x'.repeat(40 * 1024)])
  await eventually(() => server.disconnected.length === 1)
  expect(server.hub.stats().connections).toBe(0)
  await server.close()
})

test('stateful reconnect: sends while the client is away are bounded; past the bound the connection ends for good', async () => {
  const server = await startHub({ maxBufferedBytes: 64 * 1024 })
  const token = String((await negotiate(server.url, 'negotiateVersion=1&useStatefulReconnect=true')).connectionToken)
  const raw = await rawSocket(server.url, { id: token, handshake: false })
  raw.send(`{"protocol":"json","version":2}${RS}`)
  await raw.waitFor(`{}${RS}`)
  await eventually(() => server.connected.length === 1)
  const id = server.connected[0]?.id as string
  raw.ws.terminate()
  await new Promise((resolve) => setTimeout(resolve, 50))
  server.hub.sendToConnection(id, 'Receive', ['x'.repeat(40 * 1024)])
  expect(server.disconnected).toHaveLength(0)
  server.hub.sendToConnection(id, 'Receive', ['x'.repeat(40 * 1024)])
  // Long before the 5 s grace period.
  await eventually(() => server.disconnected.length === 1, 2000)
  const again = await fetch(`${server.url}?id=${token}`, { method: 'POST', body: 'x' })
  expect(again.status).toBe(404)
  await server.close()
})

test('server-sent events: a second POST while one runs is 409; POST to a WebSocket connection is 405', async () => {
  const server = await startHub()
  const { connectionToken } = await negotiate(server.url)
  const url = `${server.url}?id=${String(connectionToken)}`
  const events = new AbortController()
  const stream = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: events.signal })
  expect(stream.status).toBe(200)
  expect(stream.headers.get('content-type')).toBe('text/event-stream')
  // A POST whose body has not ended yet, then a second one.
  const first = request(url, { method: 'POST' })
  first.on('error', () => {})
  first.write(`{"protocol":"json",`)
  await eventually(() => server.hub.stats().connections === 1)
  await new Promise((resolve) => setTimeout(resolve, 50))
  expect((await fetch(url, { method: 'POST', body: `{"type":6}${RS}` })).status).toBe(409)
  const firstStatus = new Promise<number>((resolve) => first.on('response', (response) => resolve(response.statusCode ?? 0)))
  first.end(`"version":1}${RS}`)
  expect(await firstStatus).toBe(200)
  await eventually(() => server.connected.length === 1)
  // A second SSE GET for the same connection is refused.
  expect((await fetch(url, { headers: { accept: 'text/event-stream' } })).status).toBe(409)
  events.abort()
  await eventually(() => server.hub.stats().connections === 0)

  const raw = await rawSocket(server.url)
  const wsToken = raw.ws.url.split('id=')[1] as string
  expect((await fetch(`${server.url}?id=${wsToken}`, { method: 'POST', body: 'x' })).status).toBe(405)
  raw.ws.close()
  await server.close()
})

test('a long-polling client whose invocations pile up past maxQueuedInvocations is closed with an error (it cannot be paused); one within it is served in order', async () => {
  const server = await startHub({ maxQueuedInvocations: 10 })
  const calm = client(server.url)
  await calm.start()
  const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => calm.invoke('Echo', String(i))))
  expect(replies).toEqual(Array.from({ length: 10 }, (_, i) => String(i)))

  const flood = client(server.url, { transport: signalR.HttpTransportType.LongPolling })
  const closed = new Promise<Error | undefined>((resolve) => flood.onclose(resolve))
  await flood.start()
  for (let i = 0; i < 30; i++) void flood.send('Sleep', 200)
  expect((await closed)?.message).toContain('too many invocations are waiting')
  expect(calm.state).toBe('Connected')
  await calm.stop()
  await server.close()
})

test('a WebSocket that floods is paused, not closed and not queued without bound: its queue stays within the bound, others are served, every call is answered in order', async () => {
  const MAX = 10
  const CALLS = 400
  const server = await startHub({ maxQueuedInvocations: MAX })
  const calm = client(server.url)
  await calm.start()
  const flood = await rawSocket(server.url)
  await eventually(() => server.connected.length === 2)
  const floodSocket = server.sockets.at(-1)

  // Many frames, sent as fast as the client can: far more than the bound.
  for (let i = 0; i < CALLS; i++) flood.send(JSON.stringify({ type: 1, invocationId: String(i), target: 'Queued', arguments: [1] }) + RS)
  // The server stops reading the flooding socket (back-pressure) …
  await eventually(() => floodSocket?.isPaused() === true)
  // … while the other connection is served at once.
  expect(await calm.invoke('Echo', 'still served')).toBe('still served')

  await flood.waitFor(`"invocationId":"${CALLS - 1}"`, 30_000)
  const completions = [...flood.received.join('').matchAll(/"type":3,"invocationId":"(\d+)","result":(\d+)/g)]
  expect(completions.map((m) => Number(m[1]))).toEqual(Array.from({ length: CALLS }, (_, i) => i))
  const waiting = completions.map((m) => Number(m[2]))
  expect(Math.max(...waiting)).toBeLessThanOrEqual(MAX)
  expect(Math.max(...waiting)).toBeGreaterThanOrEqual(MAX / 2)
  expect(flood.ws.readyState).toBe(WebSocket.OPEN)
  expect(floodSocket?.isPaused()).toBe(false)
  flood.ws.close()
  await calm.stop()
  await server.close()
}, 60_000)

test('a WebSocket flooding 64 MB of calls from another process leaves the server’s memory flat: the socket is paused, what is held stays within the bound, and another connection is served', async () => {
  const MAX = 10
  const server = await startHub({ maxQueuedInvocations: MAX })
  const calm = client(server.url)
  await calm.start()
  const token = (await negotiate(server.url)).connectionToken as string
  // The flooding client runs in a process of its own, so what it buffers is not counted here.
  const flooder = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `
      import { WebSocket } from 'ws'
      const RS = '\\u001e'
      const ws = new WebSocket(process.argv[1], { headers: { authorization: 'Bearer alice-token' } })
      ws.on('open', () => {
        ws.send('{"protocol":"json","version":1}' + RS)
        // 100 calls a message, 8,000 messages: 64 MB of invocations sent as fast as the socket takes them.
        const frame = (i) => JSON.stringify({ type: 1, invocationId: String(i), target: 'Queued', arguments: [60000] }) + RS
        let next = 0
        for (let m = 0; m < 8000; m++) {
          let text = ''
          for (let k = 0; k < 100; k++) text += frame(next++)
          ws.send(text.padEnd(8192, ' '))
        }
        console.log('queued')
      })
      ws.on('error', (error) => console.error(String(error)))
      `,
      `${server.url.replace('http', 'ws')}?id=${token}`,
    ],
    { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const exited = new Promise((resolve) => flooder.on('exit', resolve))
  try {
    const memory = () => {
      const { heapUsed, external, arrayBuffers } = process.memoryUsage()
      return heapUsed + external + arrayBuffers
    }
    await eventually(() => server.connected.length === 2, 10_000)
    const before = memory()
    let peak = before
    const sampler = setInterval(() => (peak = Math.max(peak, memory())), 20)
    await new Promise<void>((resolve) => flooder.stdout.on('data', (chunk: Buffer) => String(chunk).includes('queued') && resolve()))
    const floodSocket = server.sockets.at(-1)
    await eventually(() => floodSocket?.isPaused() === true, 10_000)
    // Let the sender push what TCP takes while the server does not read.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(await calm.invoke('Echo', 'still served')).toBe('still served')
    clearInterval(sampler)
    peak = Math.max(peak, memory())
    // 64 MB were sent; the server holds at most MAX calls and about one socket read (1 MiB bound).
    expect(peak - before).toBeLessThan(16 * 1024 * 1024)
    expect(floodSocket?.isPaused()).toBe(true)
  } finally {
    flooder.kill()
    await exited
    await calm.stop()
    await server.close()
  }
}, 60_000)

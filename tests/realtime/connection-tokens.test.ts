import { randomUUID } from 'node:crypto'
import { afterEach, expect, test } from 'vitest'
import { WebSocket } from 'ws'
import { createLogger } from '#server/http/logger'
import { createRedisBackplane } from '#server/realtime/redis-backplane'
import { eventually, negotiate, RS, startHub, type TestHub } from './hub-server'

/**
 * Issue 36 §5: a connection token opens one connection. Two instances share the session secret,
 * so either can read the other's tokens; the first use claims the connection id in Redis (the
 * backplane), and a second use on any instance within the token's life is refused (404).
 */

const REDIS_URL = 'redis://127.0.0.1:6379'
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function instance(prefix: string): Promise<TestHub> {
  const backplane = await createRedisBackplane({ url: REDIS_URL, logger: createLogger('silent'), channelPrefix: prefix, connectTimeoutMs: 1_000 })
  await backplane.ready()
  const hub = await startHub({ backplane })
  cleanups.push(async () => {
    await hub.close()
    await backplane.close()
  })
  return hub
}

/** Opens a WebSocket with the token: answers the upgrade's status (101 when it opened). */
function open(url: string, token: string): Promise<{ status: number; ws: WebSocket }> {
  const ws = new WebSocket(`${url.replace('http', 'ws')}?id=${token}`, { headers: { authorization: 'Bearer alice-token' } })
  return new Promise((resolve) => {
    ws.once('open', () => {
      cleanups.push(async () => ws.close())
      resolve({ status: 101, ws })
    })
    ws.once('unexpected-response', (_request, response) => {
      resolve({ status: response.statusCode ?? 0, ws })
      ws.terminate()
    })
    ws.on('error', () => {})
  })
}

test('a token used on one instance is refused on another (and on the same one) while it lives', async () => {
  const prefix = `test:${randomUUID()}`
  const a = await instance(prefix)
  const b = await instance(prefix)
  const token = String((await negotiate(a.url)).connectionToken)

  const first = await open(a.url, token)
  expect(first.status).toBe(101)
  first.ws.send(`{"protocol":"json","version":1}${RS}`)
  await eventually(() => a.connected.length === 1)

  expect((await open(b.url, token)).status).toBe(404)
  expect((await fetch(`${b.url}?id=${token}`)).status).toBe(404)
  expect(b.connected).toHaveLength(0)
})

test('a token never used opens its connection on whichever instance gets it first', async () => {
  const prefix = `test:${randomUUID()}`
  const a = await instance(prefix)
  const b = await instance(prefix)
  const token = String((await negotiate(a.url)).connectionToken)

  expect((await open(b.url, token)).status).toBe(101)
  expect((await open(a.url, token)).status).toBe(404)
})

test('in memory (one instance): the same token used twice at once opens one connection', async () => {
  const hub = await startHub()
  cleanups.push(() => hub.close())
  const token = String((await negotiate(hub.url)).connectionToken)
  const answers = await Promise.all([open(hub.url, token), open(hub.url, token)])
  const statuses = answers.map((answer) => answer.status).sort()
  expect(statuses[0]).toBe(101)
  expect([404, 409]).toContain(statuses[1])
  await eventually(() => hub.hub.stats().connections === 1)
})

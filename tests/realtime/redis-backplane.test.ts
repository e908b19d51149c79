import { randomUUID } from 'node:crypto'
import { redisProxy as createRedisProxy } from '#tests/helpers/redis-proxy'
import { afterEach, expect, test } from 'vitest'
import { createLogger } from '#server/http/logger'
import { createRedisBackplane, type RedisBackplane } from '#server/realtime/redis-backplane'
import type { BackplaneControl } from '#server/realtime/types'

// This machine's Redis; every test uses its own channel prefix so runs never collide.
const REDIS = { host: '127.0.0.1', port: 6379 }
const url = `redis://${REDIS.host}:${REDIS.port}`

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

type Received = { group: string; frame: string; exclude: readonly string[] }

function recordingLogger() {
  const lines: { level: number; msg: string }[] = []
  const logger = createLogger('debug', { write: (line: string) => void lines.push(JSON.parse(line)) })
  return { logger, lines, at: (level: number) => lines.filter((line) => line.level === level).map((line) => line.msg) }
}

async function backplane(prefix: string, target = url) {
  const { logger, at } = recordingLogger()
  const instance = await createRedisBackplane({ url: target, logger, channelPrefix: prefix, connectTimeoutMs: 1_000 })
  const frames: Received[] = []
  const controls: BackplaneControl[] = []
  instance.onFrame((group, frame, exclude) => {
    frames.push({ group, frame, exclude })
  })
  instance.onControl((message) => {
    controls.push(message)
  })
  cleanups.push(() => instance.close())
  return { instance, frames, controls, warnings: () => at(40), infos: () => at(30) }
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Frames that arrive after `marker` was published on the same connection cannot be in flight: pub/sub keeps order. */
async function settle(from: RedisBackplane, to: { frames: Received[] }, group: string) {
  const marker = `marker-${randomUUID()}`
  await from.publish(group, marker)
  await until(() => to.frames.some((received) => received.frame === marker), 'the marker')
  to.frames.splice(
    to.frames.findIndex((received) => received.frame === marker),
    1,
  )
}

test('two backplanes see each other’s frames for subscribed groups only, with the exclude list, and not their own echo', async () => {
  const prefix = `test:${randomUUID()}`
  const a = await backplane(prefix)
  const b = await backplane(prefix)
  await Promise.all([a.instance.ready(), b.instance.ready()])
  await a.instance.subscribe('room:t1:r1')
  await b.instance.subscribe('room:t1:r1')
  await b.instance.subscribe('tenant:t1')

  await a.instance.publish('room:t1:r1', 'from-a\x1e', ['conn-1', 'conn-2'])
  await b.instance.publish('room:t1:r1', 'from-b\x1e')
  await b.instance.publish('tenant:t1', 'only-b-listens\x1e')
  await settle(b.instance, a, 'room:t1:r1')
  await settle(a.instance, b, 'room:t1:r1')

  expect(b.frames).toEqual([{ group: 'room:t1:r1', frame: 'from-a\x1e', exclude: ['conn-1', 'conn-2'] }])
  expect(a.frames).toEqual([{ group: 'room:t1:r1', frame: 'from-b\x1e', exclude: [] }])
})

test('after unsubscribe an instance gets no more frames for the group', async () => {
  const prefix = `test:${randomUUID()}`
  const a = await backplane(prefix)
  const b = await backplane(prefix)
  await a.instance.subscribe('g')
  await a.instance.subscribe('keep')
  await a.instance.unsubscribe('g')

  await b.instance.publish('g', 'after-unsubscribe\x1e')
  await settle(b.instance, a, 'keep')
  expect(a.frames).toEqual([])
  expect(a.instance.stats().groups).toBe(1)
})

test('a control message reaches every instance, the sender included, exactly once', async () => {
  const prefix = `test:${randomUUID()}`
  const a = await backplane(prefix)
  const b = await backplane(prefix)
  await Promise.all([a.instance.ready(), b.instance.ready()])

  await a.instance.broadcast({ kind: 'session-ended', sessionId: 's1' })
  await until(() => b.controls.length === 1, 'control on b')
  // Anything a second delivery to a would need has happened once b has it and a second broadcast round-trips.
  await b.instance.broadcast({ kind: 'user-ended', userId: 'u1' })
  await until(() => a.controls.length === 2 && b.controls.length === 2, 'second control on both')

  expect(a.controls).toEqual([
    { kind: 'session-ended', sessionId: 's1' },
    { kind: 'user-ended', userId: 'u1' },
  ])
  expect(b.controls).toEqual(a.controls)
})

test('malformed messages on the channels are ignored with a warning, not thrown', async () => {
  const prefix = `test:${randomUUID()}`
  const a = await backplane(prefix)
  const b = await backplane(prefix)
  await a.instance.subscribe('g')
  const { Redis } = await import('ioredis')
  const raw = new Redis(url)
  cleanups.push(async () => void (await raw.quit()))
  await raw.publish(`${prefix}:group:g`, 'not json')
  await raw.publish(`${prefix}:group:g`, JSON.stringify({ origin: 'x', frame: 42 }))
  await raw.publish(`${prefix}:internal:control`, JSON.stringify({ origin: 'x', control: { kind: 'nope' } }))
  await settle(b.instance, a, 'g')
  expect(a.frames).toEqual([])
  expect(a.controls).toEqual([])
  expect(a.warnings().filter((msg) => msg.includes('malformed'))).toHaveLength(3)
})

/** The shared proxy (tests/helpers/redis-proxy.ts), closed when the test ends. */
async function redisProxy() {
  const proxy = await createRedisProxy(REDIS)
  cleanups.push(proxy.cut)
  return proxy
}

test('a Redis outage: publish neither throws nor hangs, the drop is counted and warned once, and on return both ways flow again', async () => {
  const prefix = `test:${randomUUID()}`
  const proxy = await redisProxy()
  const a = await backplane(prefix, proxy.url())
  const b = await backplane(prefix)
  await Promise.all([a.instance.ready(), b.instance.ready()])
  await a.instance.subscribe('g')
  await b.instance.subscribe('g')
  await settle(b.instance, a, 'g')
  await settle(a.instance, b, 'g')

  await proxy.cut()
  await until(() => !a.instance.stats().connected, 'a to notice the outage')
  const started = Date.now()
  for (let i = 0; i < 50; i += 1) await a.instance.publish('g', `lost-${i}\x1e`)
  await a.instance.broadcast({ kind: 'user-ended', userId: 'u-during-outage' })
  // Joined during the outage: must be subscribed once Redis is back.
  await a.instance.subscribe('joined-during-outage')
  expect(Date.now() - started).toBeLessThan(5_000)
  expect(a.instance.stats().dropped).toBe(51)
  expect(a.warnings().filter((msg) => msg.includes('lost Redis'))).toHaveLength(1)
  // Control messages still reach this instance's own handlers while Redis is away.
  expect(a.controls).toEqual([{ kind: 'user-ended', userId: 'u-during-outage' }])

  await proxy.restore()
  await until(() => a.instance.stats().connected, 'a to reconnect')
  expect(a.infos().filter((msg) => msg.includes('recovered'))).toHaveLength(1)

  await b.instance.publish('g', 'b-after\x1e')
  await b.instance.publish('joined-during-outage', 'b-new-group\x1e')
  await a.instance.publish('g', 'a-after\x1e')
  await until(() => a.frames.length === 2, 'frames on a after the outage')
  await until(() => b.frames.some((received) => received.frame === 'a-after\x1e'), 'a frame from a on b')
  expect(a.frames.map((received) => received.frame)).toEqual(['b-after\x1e', 'b-new-group\x1e'])
  expect(b.frames.map((received) => received.frame)).not.toContain('lost-0\x1e')
  expect(a.instance.stats().dropped).toBe(51)
})

test('Redis unreachable from the start: calls return within the connect bound and close() ends the retries', async () => {
  const proxy = await redisProxy()
  const target = proxy.url()
  await proxy.cut()
  const a = await backplane(`test:${randomUUID()}`, target)
  const started = Date.now()
  await a.instance.subscribe('g')
  await a.instance.publish('g', 'nowhere\x1e')
  await a.instance.broadcast({ kind: 'session-ended', sessionId: 's' })
  expect(Date.now() - started).toBeLessThan(5_000)
  expect(a.controls).toEqual([{ kind: 'session-ended', sessionId: 's' }])
  expect(a.instance.stats()).toMatchObject({ connected: false, groups: 1 })
  await a.instance.close()
})

import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { redisProxy as createRedisProxy } from '#tests/helpers/redis-proxy'
import { afterEach, describe, expect, test } from 'vitest'
import { createLogger } from '#server/http/logger'
import { createMemoryPresence } from '#server/realtime/memory-presence'
import { createRedisPresence } from '#server/realtime/redis-presence'
import type { PresenceStore } from '#server/realtime/types'

// This machine's Redis; every test uses its own key prefix so runs never collide.
const url = 'redis://127.0.0.1:6379'
const TTL = 10_000

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function recordingLogger() {
  const lines: { level: number; msg: string }[] = []
  const logger = createLogger('debug', { write: (line: string) => void lines.push(JSON.parse(line)) })
  return { logger, messages: (level: number) => lines.filter((line) => line.level === level).map((line) => line.msg) }
}

function clock() {
  let time = 1_700_000_000_000
  return { now: () => time, advance: (ms: number) => void (time += ms) }
}

type Factory = (options: { now: () => number; instanceId: string; prefix: string }) => Promise<PresenceStore>

const stores: [string, Factory][] = [
  ['memory', async ({ now, instanceId }) => createMemoryPresence({ ttlMs: TTL, now, instanceId })],
  [
    'redis',
    async ({ now, instanceId, prefix }) => {
      const store = await createRedisPresence({ url, logger: recordingLogger().logger, instanceId, ttlMs: TTL, prefix, now })
      cleanups.push(() => store.close())
      return store
    },
  ],
]

const zoe = (tab: number) => ({ connectionId: `zoe-${tab}`, userId: 'u-zoe', displayName: 'Zoe' })
const adam = { connectionId: 'adam-1', userId: 'u-adam', displayName: 'Adam' }
const bea = { connectionId: 'bea-1', userId: 'u-bea', displayName: 'Bea' }

describe.each(stores)('%s presence', (_name, create) => {
  async function setup() {
    const time = clock()
    const prefix = `test:${randomUUID()}`
    return { time, prefix, store: await create({ now: time.now, instanceId: 'i1', prefix }) }
  }

  test('join answers the room grouped by person (two tabs = two connections) and sorted by name', async () => {
    const { store } = await setup()
    expect(await store.join('room:t:1', zoe(1))).toEqual([{ userId: 'u-zoe', displayName: 'Zoe', connections: 1 }])
    await store.join('room:t:1', zoe(2))
    expect(await store.join('room:t:1', adam)).toEqual([
      { userId: 'u-adam', displayName: 'Adam', connections: 1 },
      { userId: 'u-zoe', displayName: 'Zoe', connections: 2 },
    ])
    expect(await store.list('room:t:2')).toEqual([])
  })

  test('leave answers who is left; the last tab takes the person out; an unknown connection changes nothing', async () => {
    const { store } = await setup()
    await store.join('r', zoe(1))
    await store.join('r', zoe(2))
    await store.join('r', adam)
    expect(await store.leave('r', 'zoe-1')).toEqual([
      { userId: 'u-adam', displayName: 'Adam', connections: 1 },
      { userId: 'u-zoe', displayName: 'Zoe', connections: 1 },
    ])
    expect(await store.leave('r', 'zoe-2')).toEqual([{ userId: 'u-adam', displayName: 'Adam', connections: 1 }])
    expect(await store.leave('r', 'nobody')).toEqual([{ userId: 'u-adam', displayName: 'Adam', connections: 1 }])
    expect(await store.leave('r', 'adam-1')).toEqual([])
  })

  test('expired entries never count, before any sweep', async () => {
    const { store, time } = await setup()
    await store.join('r', adam)
    time.advance(TTL / 2)
    await store.join('r', bea)
    time.advance(TTL / 2)
    expect(await store.list('r')).toEqual([{ userId: 'u-bea', displayName: 'Bea', connections: 1 }])
    expect(await store.join('r', zoe(1))).toEqual([
      { userId: 'u-bea', displayName: 'Bea', connections: 1 },
      { userId: 'u-zoe', displayName: 'Zoe', connections: 1 },
    ])
  })

  test('refresh keeps entries alive past their first expiry', async () => {
    const { store, time } = await setup()
    await store.join('r', adam)
    await store.join('other', bea)
    time.advance(TTL - 1)
    await store.refresh([
      { room: 'r', entry: adam },
      { room: 'other', entry: bea },
    ])
    time.advance(TTL - 1)
    expect(await store.list('r')).toEqual([{ userId: 'u-adam', displayName: 'Adam', connections: 1 }])
    expect(await store.list('other')).toEqual([{ userId: 'u-bea', displayName: 'Bea', connections: 1 }])
    time.advance(1)
    expect(await store.list('r')).toEqual([])
  })

  test('sweep removes expired entries and answers only the rooms whose members changed', async () => {
    const { store, time } = await setup()
    await store.join('mixed', adam)
    await store.join('emptied', zoe(1))
    time.advance(TTL / 2)
    await store.join('mixed', bea)
    await store.join('live', zoe(2))
    time.advance(TTL / 2)

    const changed = await store.sweep(['mixed', 'emptied', 'live', 'unknown', 'mixed'])
    expect(changed).toEqual([
      { room: 'mixed', members: [{ userId: 'u-bea', displayName: 'Bea', connections: 1 }] },
      { room: 'emptied', members: [] },
    ])
    expect(await store.sweep(['mixed', 'emptied', 'live'])).toEqual([])
    expect(await store.list('live')).toEqual([{ userId: 'u-zoe', displayName: 'Zoe', connections: 1 }])
  })
})

test('redis: two instances share a room, and a crashed instance’s entries are swept by the survivor', async () => {
  const time = clock()
  const prefix = `test:${randomUUID()}`
  const { logger } = recordingLogger()
  const one = await createRedisPresence({ url, logger, instanceId: 'one', ttlMs: TTL, prefix, now: time.now })
  const two = await createRedisPresence({ url, logger, instanceId: 'two', ttlMs: TTL, prefix, now: time.now })
  cleanups.push(
    () => one.close(),
    () => two.close(),
  )

  await one.join('r', adam)
  expect(await two.join('r', bea)).toEqual([
    { userId: 'u-adam', displayName: 'Adam', connections: 1 },
    { userId: 'u-bea', displayName: 'Bea', connections: 1 },
  ])
  const raw = new Redis(url)
  cleanups.push(() => raw.quit())
  expect(JSON.parse((await raw.hget(`${prefix}:r`, 'adam-1')) ?? '')).toEqual({
    userId: 'u-adam',
    displayName: 'Adam',
    instance: 'one',
    expiresAt: time.now() + TTL,
  })

  // Instance one stops refreshing (crashed); two keeps its own entries alive.
  time.advance(TTL - 1)
  await two.refresh([{ room: 'r', entry: bea }])
  time.advance(1)
  expect(await two.sweep(['r'])).toEqual([{ room: 'r', members: [{ userId: 'u-bea', displayName: 'Bea', connections: 1 }] }])
  expect(await raw.hkeys(`${prefix}:r`)).toEqual(['bea-1'])
})

test('redis: the room key itself expires when nobody refreshes it', async () => {
  const prefix = `test:${randomUUID()}`
  const store = await createRedisPresence({ url, logger: recordingLogger().logger, instanceId: 'i', ttlMs: 200, prefix })
  const raw = new Redis(url)
  cleanups.push(
    () => store.close(),
    () => raw.quit(),
  )
  await store.join('r', adam)
  expect(await raw.pttl(`${prefix}:r`)).toBeGreaterThan(0)
  const deadline = Date.now() + 5_000
  while ((await raw.exists(`${prefix}:r`)) === 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  expect(await raw.exists(`${prefix}:r`)).toBe(0)
})

test('redis: a passed-in client is used and left open by close()', async () => {
  const prefix = `test:${randomUUID()}`
  const client = new Redis(url)
  cleanups.push(() => client.quit())
  const store = await createRedisPresence({ redis: client, logger: recordingLogger().logger, instanceId: 'i', prefix })
  expect(await store.join('r', adam)).toEqual([{ userId: 'u-adam', displayName: 'Adam', connections: 1 }])
  await store.close()
  expect(await client.hkeys(`${prefix}:r`)).toEqual(['adam-1'])
})

/** The shared proxy (tests/helpers/redis-proxy.ts), closed when the test ends. */
async function redisProxy() {
  const proxy = await createRedisProxy()
  cleanups.push(proxy.cut)
  return proxy
}

test('redis: while Redis is away presence answers what it can without throwing, warns once, and recovers', async () => {
  const prefix = `test:${randomUUID()}`
  const proxy = await redisProxy()
  const { logger, messages } = recordingLogger()
  const store = await createRedisPresence({ url: proxy.url(), logger, instanceId: 'i', ttlMs: TTL, prefix })
  cleanups.push(() => store.close())
  await store.join('r', adam)

  await proxy.cut()
  const started = Date.now()
  expect(await store.join('r', bea)).toEqual([{ userId: 'u-bea', displayName: 'Bea', connections: 1 }])
  expect(await store.leave('r', 'adam-1')).toEqual([])
  expect(await store.list('r')).toEqual([])
  await expect(store.refresh([{ room: 'r', entry: bea }])).resolves.toBeUndefined()
  expect(await store.sweep(['r'])).toEqual([])
  expect(Date.now() - started).toBeLessThan(10_000)
  expect(messages(40)).toHaveLength(1)

  await proxy.restore()
  const deadline = Date.now() + 10_000
  let members = await store.list('r')
  while (members.length === 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    members = await store.list('r')
  }
  // The join made before the outage is still there; the ones made during it were not stored.
  expect(members).toEqual([{ userId: 'u-adam', displayName: 'Adam', connections: 1 }])
  expect(messages(30)).toContain('Redis presence recovered')
})

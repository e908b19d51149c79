import type { Redis } from 'ioredis'
import { z } from 'zod'
import type { Logger } from '#server/http/logger'
import { membersOf, type StoredPresence } from './memory-presence'
import { failFastRedisOptions, quit } from './redis-backplane'
import type { PresenceEntry, PresenceMember, PresenceStore } from './types'

/**
 * Presence shared by every instance: a Redis hash per room (`{prefix}:{room}`), one field per
 * connection holding `{userId, displayName, instance, expiresAt}`. Every write also sets the key's
 * expiry to the TTL, so a room whose instances all died disappears by itself; a crashed instance's
 * entries in a live room stop counting at their expiresAt and `sweep` removes them. Clocks are the
 * instances' own: they must agree to well within the TTL.
 *
 * Redis errors never reach the hub: a join answers just the caller, the other calls answer nothing,
 * and a warning is logged once until Redis answers again.
 */

export type RedisPresenceOptions = ({ url: string } | { redis: Redis }) & {
  logger: Logger
  instanceId: string
  ttlMs?: number
  prefix?: string
  now?: () => number
  connectTimeoutMs?: number
}

const TTL_MS = 30_000
const CONNECT_TIMEOUT_MS = 5_000

const storedPresence = z.object({ userId: z.string(), displayName: z.string(), instance: z.string(), expiresAt: z.number() })

/**
 * Removes the entries whose expiresAt has passed (or that cannot be read) in one step, so a refresh
 * can never be lost to a sweep. Answers the number removed, then (if any) the room's hash as it is now.
 */
const SWEEP_SCRIPT = `
local now = tonumber(ARGV[1])
local all = redis.call('HGETALL', KEYS[1])
local removed = 0
for i = 1, #all, 2 do
  local ok, entry = pcall(cjson.decode, all[i + 1])
  local expiresAt = ok and type(entry) == 'table' and tonumber(entry.expiresAt) or nil
  if expiresAt == nil or expiresAt <= now then
    redis.call('HDEL', KEYS[1], all[i])
    removed = removed + 1
  end
end
local answer = { removed }
if removed > 0 then
  for _, value in ipairs(redis.call('HGETALL', KEYS[1])) do table.insert(answer, value) end
end
return answer
`

/** ioredis loads here, not with the server: a single server (no REDIS_URL) never needs it. */
async function ownConnection(url: string, instanceId: string): Promise<Redis> {
  const ioredis = await import('ioredis')
  return new ioredis.Redis(url, { ...failFastRedisOptions(), connectionName: `presence-${instanceId}` })
}

export async function createRedisPresence(options: RedisPresenceOptions): Promise<PresenceStore> {
  const { logger, instanceId, ttlMs = TTL_MS, prefix = 'site-portal:presence', now = Date.now, connectTimeoutMs = CONNECT_TIMEOUT_MS } = options
  const log = logger.child({ component: 'redis-presence', instance: instanceId })
  const owned = 'url' in options
  const redis = 'url' in options ? await ownConnection(options.url, instanceId) : options.redis
  let failing = false
  let everReady = redis.status === 'ready'
  redis.on('ready', () => (everReady = true))
  // Our own connection reports failed reconnects through the warnings below, not as unhandled errors.
  if (owned) redis.on('error', (error: Error) => log.debug({ err: error }, 'Redis presence connection error'))

  const key = (room: string) => `${prefix}:${room}`
  const stored = (entry: PresenceEntry): string =>
    JSON.stringify({ userId: entry.userId, displayName: entry.displayName, instance: instanceId, expiresAt: now() + ttlMs } satisfies StoredPresence)

  function members(hash: Record<string, string> | string[]): PresenceMember[] {
    const values = Array.isArray(hash) ? hash.filter((_, index) => index % 2 === 1) : Object.values(hash)
    const entries: StoredPresence[] = []
    for (const value of values) {
      try {
        const entry = storedPresence.safeParse(JSON.parse(value))
        if (entry.success) entries.push(entry.data)
      } catch {
        // Unreadable: does not count, and the next sweep removes it.
      }
    }
    return membersOf(entries, now())
  }

  /** At startup, wait (bounded) for the first connection; afterwards fail fast while Redis is away. */
  async function connected() {
    if (everReady || redis.status === 'ready') return
    let timer: NodeJS.Timeout | undefined
    await Promise.race([new Promise((resolve) => redis.once('ready', resolve)), new Promise((resolve) => (timer = setTimeout(resolve, connectTimeoutMs)))])
    clearTimeout(timer)
  }

  async function attempt<T>(what: string, run: () => Promise<T>, fallback: T): Promise<T> {
    try {
      await connected()
      const result = await run()
      if (failing) log.info('Redis presence recovered')
      failing = false
      return result
    } catch (error) {
      if (!failing) log.warn({ err: error, what }, 'Redis presence failed: answering what this instance knows until Redis returns')
      failing = true
      return fallback
    }
  }

  async function exec<T>(transaction: ReturnType<Redis['multi']>, index: number): Promise<T> {
    const results = await transaction.exec()
    const [error, value] = results?.[index] ?? [new Error('transaction discarded'), undefined]
    if (error) throw error
    return value as T
  }

  return {
    join(room, entry) {
      const caller: PresenceMember[] = [{ userId: entry.userId, displayName: entry.displayName, connections: 1 }]
      return attempt(
        'join',
        async () => members(await exec(redis.multi().hset(key(room), entry.connectionId, stored(entry)).pexpire(key(room), ttlMs).hgetall(key(room)), 2)),
        caller,
      )
    },
    leave(room, connectionId) {
      return attempt('leave', async () => members(await exec(redis.multi().hdel(key(room), connectionId).hgetall(key(room)), 1)), [])
    },
    list(room) {
      return attempt('list', async () => members(await redis.hgetall(key(room))), [])
    },
    async refresh(entries) {
      if (entries.length === 0) return
      await attempt(
        'refresh',
        async () => {
          const transaction = redis.multi()
          for (const { room, entry } of entries) transaction.hset(key(room), entry.connectionId, stored(entry)).pexpire(key(room), ttlMs)
          const results = await transaction.exec()
          const failed = results?.find(([error]) => error)
          if (!results || failed) throw failed?.[0] ?? new Error('transaction discarded')
        },
        undefined,
      )
    },
    sweep(rooms) {
      return attempt(
        'sweep',
        async () => {
          const changed: { room: string; members: PresenceMember[] }[] = []
          const at = now()
          for (const room of new Set(rooms)) {
            const [removed, ...hash] = (await redis.eval(SWEEP_SCRIPT, 1, key(room), at)) as [number, ...string[]]
            if (removed > 0) changed.push({ room, members: members(hash) })
          }
          return changed
        },
        [],
      )
    },
    async close() {
      if (owned) await quit(redis)
    },
  }
}

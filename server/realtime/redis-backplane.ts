import { randomUUID } from 'node:crypto'
import type { Redis, RedisOptions } from 'ioredis'
import { z } from 'zod'
import type { Logger } from '#server/http/logger'
import { createClaims } from './memory-backplane'
import type { Backplane, BackplaneControl, Frame } from './types'

/**
 * The backplane for several instances, after .NET's RedisHubLifetimeManager: one pub/sub channel
 * per group (`{prefix}:group:{name}`), subscribed only while this instance has a local member, and
 * `{prefix}:internal:control` for control messages. One connection publishes, a dedicated one
 * subscribes (a subscribed Redis connection can run nothing else).
 *
 * Redis going away never reaches the hub: publishing drops the frame (as .NET does, messages sent
 * while Redis is down are lost), counts it and warns once per outage; the hub keeps serving its own
 * connections. Neither connection queues commands while offline, so an outage cannot grow memory.
 * When Redis is back, this module itself subscribes again to every current group (ioredis's
 * autoResubscribe is off, so the set of groups we hold is the only truth).
 */

export type RedisBackplaneOptions = {
  url: string
  logger: Logger
  channelPrefix?: string
  /** How long a call waits for the very first connection at startup before giving up on it. */
  connectTimeoutMs?: number
}

export type RedisBackplane = Backplane & {
  /** Resolves once both connections are up and the control channel is subscribed (bounded by connectTimeoutMs). */
  ready(): Promise<void>
  stats(): { connected: boolean; dropped: number; groups: number }
}

const CONNECT_TIMEOUT_MS = 5_000
/** A command that gets no answer (a half-open socket) fails after this long instead of hanging the hub. */
const COMMAND_TIMEOUT_MS = 2_000

/** Options for a connection that fails fast while Redis is away instead of queueing (shared with the presence store). */
export function failFastRedisOptions(): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    autoResubscribe: false,
    // Reconnect forever, at most every 2 s: an outage ends when Redis returns, not when we give up.
    retryStrategy: (times) => Math.min(times * 100, 2_000),
  }
}

const framePayload = z.object({ origin: z.string(), exclude: z.array(z.string()), frame: z.string() })
const controlPayload = z.object({
  origin: z.string(),
  control: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('session-ended'), sessionId: z.string() }),
    z.object({ kind: z.literal('user-ended'), userId: z.string() }),
  ]),
})

export async function createRedisBackplane({
  url,
  logger,
  channelPrefix = 'site-portal:hub',
  connectTimeoutMs = CONNECT_TIMEOUT_MS,
}: RedisBackplaneOptions): Promise<RedisBackplane> {
  const origin = randomUUID()
  const log = logger.child({ component: 'redis-backplane', origin })
  const groupPrefix = `${channelPrefix}:group:`
  const controlChannel = `${channelPrefix}:internal:control`
  const claimPrefix = `${channelPrefix}:claimed:`
  const localClaim = createClaims()
  // ioredis loads here, not with the server: a single server (no REDIS_URL) never needs it (~80 ms of CPU).
  const ioredis = await import('ioredis')
  const publisher = new ioredis.Redis(url, { ...failFastRedisOptions(), connectionName: `hub-pub-${origin}` })
  const subscriber = new ioredis.Redis(url, { ...failFastRedisOptions(), connectionName: `hub-sub-${origin}` })

  const groups = new Set<string>()
  const frameHandlers: ((group: string, frame: Frame, exclude: readonly string[]) => void)[] = []
  const controlHandlers: ((message: BackplaneControl) => void)[] = []
  let closed = false
  let outage = false
  let dropped = 0
  let droppedThisOutage = 0
  let subscribed = false

  let markReady: () => void = () => {}
  const firstReady = new Promise<void>((resolve) => (markReady = resolve))

  function startOutage(reason: string, error?: unknown) {
    if (closed || outage) return
    outage = true
    droppedThisOutage = 0
    log.warn({ reason, err: error }, 'Redis backplane lost Redis: frames for other instances are dropped until it returns')
  }

  function endOutage() {
    if (!outage) return
    outage = false
    log.info({ dropped: droppedThisOutage }, 'Redis backplane recovered: publishing and subscribed again')
  }

  for (const [name, connection] of [
    ['publisher', publisher],
    ['subscriber', subscriber],
  ] as const) {
    // Without a listener ioredis reports every failed reconnect on console.error; one warning per outage is enough.
    connection.on('error', (error: Error) => {
      if (outage || closed) return log.debug({ err: error, connection: name }, 'Redis backplane connection error')
      startOutage(`${name} error`, error)
    })
    connection.on('close', () => {
      if (name === 'subscriber') subscribed = false
      if (!closed) startOutage(`${name} connection closed`)
    })
    connection.on('ready', () => void onReady())
  }

  async function onReady() {
    if (closed || publisher.status !== 'ready' || subscriber.status !== 'ready') return
    if (!subscribed) {
      try {
        // Everything we hold at this moment; groups added meanwhile subscribe themselves (subscribed is true then).
        await subscriber.subscribe(controlChannel, ...[...groups].map((group) => groupPrefix + group))
        subscribed = true
      } catch (error) {
        // The connection dropped again mid-way; the next 'ready' tries again.
        return log.debug({ err: error }, 'Redis backplane could not subscribe yet')
      }
    }
    markReady()
    endOutage()
  }

  subscriber.on('message', (channel: string, message: string) => {
    try {
      if (channel === controlChannel) return onControlMessage(message)
      if (channel.startsWith(groupPrefix)) return onGroupMessage(channel.slice(groupPrefix.length), message)
    } catch (error) {
      log.error({ err: error, channel }, 'Redis backplane handler failed')
    }
  })

  function parse(message: string): unknown {
    try {
      return JSON.parse(message)
    } catch {
      return undefined
    }
  }

  function onGroupMessage(group: string, message: string) {
    // A frame published just before our unsubscribe went through may still arrive: nobody here wants it.
    if (!groups.has(group)) return
    const payload = framePayload.safeParse(parse(message))
    if (!payload.success) return log.warn({ group }, 'Redis backplane ignored a malformed frame message')
    // The hub delivered to its own connections before publishing.
    if (payload.data.origin === origin) return
    for (const handler of frameHandlers) handler(group, payload.data.frame, payload.data.exclude)
  }

  function onControlMessage(message: string) {
    const payload = controlPayload.safeParse(parse(message))
    if (!payload.success) return log.warn('Redis backplane ignored a malformed control message')
    // Delivered here directly by broadcast(), so it works during an outage too.
    if (payload.data.origin === origin) return
    deliverControl(payload.data.control)
  }

  function deliverControl(message: BackplaneControl) {
    for (const handler of controlHandlers) {
      try {
        handler(message)
      } catch (error) {
        log.error({ err: error, kind: message.kind }, 'Redis backplane control handler failed')
      }
    }
  }

  /** Waits for the first connection at startup only; during a later outage callers go straight on. */
  async function startup() {
    if (subscribed || outage) return
    let timer: NodeJS.Timeout | undefined
    await Promise.race([firstReady, new Promise<void>((resolve) => (timer = setTimeout(resolve, connectTimeoutMs)))])
    clearTimeout(timer)
  }

  async function send(channel: string, payload: string): Promise<boolean> {
    await startup()
    if (closed) return false
    try {
      await publisher.publish(channel, payload)
      // An outage that was only a timed-out command (no reconnect, so no 'ready') ends here.
      if (subscribed) endOutage()
      return true
    } catch (error) {
      dropped += 1
      droppedThisOutage += 1
      startOutage('publish failed', error)
      return false
    }
  }

  async function toggle(group: string, action: 'subscribe' | 'unsubscribe') {
    await startup()
    // Not connected: the set is the truth, and the next 'ready' subscribes to what it holds.
    if (closed || !subscribed) return
    try {
      await subscriber[action](groupPrefix + group)
    } catch (error) {
      startOutage(`${action} failed`, error)
    }
  }

  return {
    async publish(group, frame, exclude = []) {
      await send(groupPrefix + group, JSON.stringify({ origin, exclude, frame }))
    },
    async subscribe(group) {
      groups.add(group)
      await toggle(group, 'subscribe')
    },
    async unsubscribe(group) {
      groups.delete(group)
      await toggle(group, 'unsubscribe')
    },
    onFrame(handler) {
      frameHandlers.push(handler)
    },
    async broadcast(message) {
      deliverControl(message)
      await send(controlChannel, JSON.stringify({ origin, control: message }))
    },
    onControl(handler) {
      controlHandlers.push(handler)
    },
    async claimConnection(connectionId, ttlMs) {
      // Shared by every instance: SET NX answers OK to the first claim only.
      try {
        return (await publisher.set(`${claimPrefix}${connectionId}`, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX')) === 'OK'
      } catch (error) {
        // Redis away: this instance's own memory still refuses a second use here (the hub keeps serving).
        log.warn({ err: error }, 'a connection token could not be claimed in Redis; checked on this instance only')
        return localClaim(connectionId, ttlMs)
      }
    },
    async close() {
      closed = true
      await Promise.all([quit(publisher), quit(subscriber)])
    },
    ready: startup,
    stats: () => ({ connected: subscribed && publisher.status === 'ready', dropped, groups: groups.size }),
  }
}

/** QUIT when connected (lets Redis finish what it has), otherwise just stop reconnecting. */
export async function quit(connection: Redis) {
  if (connection.status === 'ready') {
    try {
      await connection.quit()
      return
    } catch {
      // Fall through: the connection went away while quitting.
    }
  }
  connection.disconnect()
}

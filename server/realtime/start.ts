import { randomUUID } from 'node:crypto'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Config } from '#server/config'
import type { Database } from '#server/db/client'
import type { LogRing } from '#server/domain/observability/log-ring'
import type { Logger } from '#server/http/logger'
import type { HubTimings } from './hub'
import { createMemoryBackplane } from './memory-backplane'
import { createMemoryPresence } from './memory-presence'
import { createPortalHub, type PortalHub } from './portal-hub'
import { createRedisBackplane } from './redis-backplane'
import { createRedisPresence } from './redis-presence'

export type Realtime = PortalHub & {
  /** Drains the hub (clients reconnect elsewhere or after the restart), then closes Redis. */
  close(): Promise<void>
}

export type RealtimeDeps = {
  config: Config
  db: Database
  logger: Logger
  now: () => Date
  timings?: Partial<HubTimings>
  sessionCheckMs?: number
  presenceRefreshMs?: number
  /** The logger's ring, for administrators following their organisation's log lines. */
  logRing?: LogRing | undefined
}

/** The portal's hub with the backplane and presence store the configuration asks for. */
export async function startRealtime(deps: RealtimeDeps): Promise<Realtime> {
  const { config, logger } = deps
  const instanceId = randomUUID()
  const backplane = config.redisUrl ? await createRedisBackplane({ url: config.redisUrl, logger }) : createMemoryBackplane()
  const presence = config.redisUrl ? await createRedisPresence({ url: config.redisUrl, logger, instanceId }) : createMemoryPresence({ ttlMs: 30_000 })
  const portal = createPortalHub({ ...deps, backplane, presence })
  logger.info({ backplane: config.redisUrl ? 'redis' : 'memory' }, 'realtime hub ready')
  return {
    ...portal,
    async close() {
      await portal.drain()
      await presence.close()
      await backplane.close()
    },
  }
}

/**
 * The hub shares the app's HTTP server: its requests (negotiate, Server-Sent Events, long polling)
 * and WebSocket upgrades are taken before the front door; every other request goes on to `next`,
 * and any other upgrade is refused.
 */
export function hubRequestListener(
  realtime: Pick<Realtime, 'hub'>,
  next: (request: IncomingMessage, response: ServerResponse) => void,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    if (!realtime.hub.handleRequest(request, response)) next(request, response)
  }
}

export function attachHubUpgrades(server: Server, realtime: Pick<Realtime, 'hub'>): void {
  server.on('upgrade', (request, socket, head: Buffer) => {
    if (!realtime.hub.handleUpgrade(request, socket, head)) socket.destroy()
  })
}

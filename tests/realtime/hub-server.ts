import * as signalR from '@microsoft/signalr'
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import { type AddressInfo } from 'node:net'
import { type Duplex } from 'node:stream'
import { WebSocket } from 'ws'
import { z } from 'zod'
import { createLogger } from '#server/http/logger'
import { createHub, type Hub, type HubOptions } from '#server/realtime/hub'
import { createMemoryBackplane } from '#server/realtime/memory-backplane'
import { type ConnectionInfo, HubError, type Principal } from '#server/realtime/types'

/** A hub on a real HTTP server, with a fake authenticator (bearer, cookie or browser query token) and test methods. */

export const RS = '\u001e'
export const HUB_PATH = '/hub/realtime'
export const ALLOWED_ORIGIN = 'http://portal.example'

export const users: Record<string, Principal> = {
  'alice-token': { userId: 'alice', tenantId: 't1', sessionId: 's-alice', displayName: 'Alice' },
  'bob-token': { userId: 'bob', tenantId: 't1', sessionId: 's-bob', displayName: 'Bob' },
}

export const TEST_TIMINGS = { keepAliveMs: 250, clientTimeoutMs: 1500, handshakeTimeoutMs: 1000, statefulGraceMs: 5000, tokenTtlMs: 10_000, longPollMs: 1000 }

export type TestHub = {
  hub: Hub
  server: Server
  url: string
  port: number
  /** Server-side sockets of the WebSocket upgrades, newest last (to drop one). */
  sockets: Duplex[]
  /** Numbers the `Record` method received, per connection id. */
  recorded: Map<string, number[]>
  connected: ConnectionInfo[]
  disconnected: ConnectionInfo[]
  close(): Promise<void>
}

function tokenOf(request: { headers: Record<string, string | string[] | undefined>; url?: string }): string | undefined {
  const header = request.headers.authorization
  if (typeof header === 'string' && header.startsWith('Bearer ')) return header.slice(7)
  const cookie = request.headers.cookie
  if (typeof cookie === 'string') return /(?:^|;\s*)session=([^;]+)/.exec(cookie)?.[1]
  return new URL(request.url ?? '/', 'http://x').searchParams.get('access_token') ?? undefined
}

export async function startHub(overrides: Partial<HubOptions> = {}, port = 0): Promise<TestHub> {
  const recorded = new Map<string, number[]>()
  const connected: ConnectionInfo[] = []
  const disconnected: ConnectionInfo[] = []
  const sockets: Duplex[] = []
  const hub: Hub = createHub({
    path: HUB_PATH,
    secret: 'test-secret-of-enough-length-0123456789',
    authenticate: async (request) => {
      const token = tokenOf(request)
      return token === undefined ? undefined : users[token]
    },
    isAllowedOrigin: (origin) => origin === undefined || origin === ALLOWED_ORIGIN,
    methods: {
      Echo: { args: z.tuple([z.string()]), run: async (_connection, text) => text },
      Join: { args: z.tuple([z.string()]), run: (connection, group) => hub.addToGroup(connection.id, group) },
      Leave: { args: z.tuple([z.string()]), run: (connection, group) => hub.removeFromGroup(connection.id, group) },
      Broadcast: {
        args: z.tuple([z.string(), z.unknown()]),
        run: (connection, group, value) => hub.sendToGroup(group, 'Receive', [value], { exclude: [connection.id] }),
      },
      Record: {
        args: z.tuple([z.number()]),
        run: async (connection, n) => {
          recorded.set(connection.id, [...(recorded.get(connection.id) ?? []), n])
        },
      },
      Refuse: {
        args: z.tuple([]),
        run: async () => {
          throw new HubError('Not in this room')
        },
      },
      Boom: {
        args: z.tuple([]),
        run: async () => {
          throw new Error('database password is hunter2')
        },
      },
      Sleep: { args: z.tuple([z.number()]), run: (_connection, ms) => new Promise((resolve) => setTimeout(() => resolve('slept'), ms)) },
      /** Sleeps, answering how many invocations were waiting behind this one when it started. */
      Queued: {
        args: z.tuple([z.number()]),
        run: (connection, ms) => {
          const waiting = (connection as unknown as { queuedInvocations: number }).queuedInvocations
          return new Promise((resolve) => setTimeout(() => resolve(waiting), ms))
        },
      },
    },
    onConnected: (connection) => {
      connected.push(connection)
    },
    onDisconnected: (connection) => {
      disconnected.push(connection)
    },
    backplane: createMemoryBackplane(),
    logger: createLogger('silent'),
    timings: TEST_TIMINGS,
    ...overrides,
  })
  const server = createServer((request, response) => {
    if (!hub.handleRequest(request, response)) {
      response.statusCode = 404
      response.end()
    }
  })
  server.on('upgrade', (request, socket, head) => {
    sockets.push(socket)
    if (!hub.handleUpgrade(request, socket, head)) socket.destroy()
  })
  server.listen(port, '127.0.0.1')
  await once(server, 'listening')
  const actualPort = (server.address() as AddressInfo).port
  return {
    hub,
    server,
    url: `http://127.0.0.1:${actualPort}${HUB_PATH}`,
    port: actualPort,
    sockets,
    recorded,
    connected,
    disconnected,
    async close() {
      await hub.shutdown()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

export type ClientOptions = {
  transport?: signalR.HttpTransportType
  token?: string
  skipNegotiation?: boolean
  stateful?: boolean
  reconnectDelays?: number[]
}

/** The official client, quiet, with short timings matching TEST_TIMINGS. */
export function client(url: string, options: ClientOptions = {}): signalR.HubConnection {
  const token = options.token ?? 'alice-token'
  let builder = new signalR.HubConnectionBuilder()
    .withUrl(url, {
      transport: options.transport ?? signalR.HttpTransportType.WebSockets,
      skipNegotiation: options.skipNegotiation ?? false,
      accessTokenFactory: () => token,
    })
    .configureLogging(signalR.LogLevel.None)
    .withServerTimeout(1500)
    .withKeepAliveInterval(500)
  if (options.stateful) builder = builder.withStatefulReconnect()
  if (options.reconnectDelays) builder = builder.withAutomaticReconnect(options.reconnectDelays)
  return builder.build()
}

/** Negotiates v1 with a bearer token and answers the body. */
export async function negotiate(url: string, query = 'negotiateVersion=1', token = 'alice-token'): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}/negotiate?${query}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
  return (await response.json()) as Record<string, unknown>
}

export type RawSocket = {
  ws: WebSocket
  /** Everything received, as text. */
  received: string[]
  /** Resolves with the close code. */
  closed: Promise<number>
  /** Waits until the received text contains `text`. */
  waitFor(text: string, timeoutMs?: number): Promise<void>
  send(text: string): void
}

/** A raw WebSocket, for what the official client never sends. */
export async function rawSocket(url: string, options: { id?: string; headers?: Record<string, string>; handshake?: boolean } = {}): Promise<RawSocket> {
  const id = options.id ?? ((await negotiate(url)).connectionToken as string)
  const ws = new WebSocket(`${url.replace('http', 'ws')}?id=${id}`, { headers: options.headers ?? { authorization: 'Bearer alice-token' } })
  const received: string[] = []
  ws.on('message', (data) => received.push(String(data)))
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)))
  await once(ws, 'open')
  const raw: RawSocket = {
    ws,
    received,
    closed,
    send: (text) => ws.send(text),
    async waitFor(text, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs
      while (!received.join('').includes(text)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${JSON.stringify(text)}; got ${JSON.stringify(received.join(''))}`)
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    },
  }
  if (options.handshake ?? true) {
    raw.send(`{"protocol":"json","version":1}${RS}`)
    await raw.waitFor(`{}${RS}`)
  }
  return raw
}

/** Polls `check` until it holds (no fixed sleeps in assertions). */
export async function eventually(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

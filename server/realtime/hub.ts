/**
 * The protocol core of the realtime hub: ASP.NET Core SignalR's negotiate, transports and JSON hub
 * protocol (notes/signalr-protocol.md), with groups fanned out through a backplane. It knows
 * nothing of tenants or rooms: `portal-hub.ts` gives it an authenticator, methods and hooks.
 *
 * Affinity: the connection token is self-validating (HMAC), so a WebSocket connection can be
 * accepted by any instance after negotiate — no sticky sessions for WebSockets. Server-sent events
 * and long polling keep the connection's state in this process across several HTTP requests, and
 * stateful reconnect keeps a dropped WebSocket's connection (buffer, groups) here for the grace
 * period: those need every request of a connection to reach the same instance (affinity at the
 * load balancer). A token is good for one connection per instance; across instances a replay
 * within its short lifetime (tokenTtlMs) cannot be told from the first use.
 */
import { type IncomingMessage, type ServerResponse } from 'node:http'
import { type Duplex } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import { WebSocketServer } from 'ws'
import { type Logger } from '#server/http/logger'
import { type ConnectionHost, HubConnection } from './connection'
import { newConnectionId, readConnectionToken, type TokenPayload } from './connection-token'
import { answerPreflight, answerText, carriesCredentials, queryValue, refuseUpgrade, setCors } from './http'
import { answerNegotiate } from './negotiate'
import { errorText, formatMessage, MessageType } from './protocol'
import { attachLongPolling, type LongPolling } from './transports/long-polling'
import { attachServerSentEvents } from './transports/server-sent-events'
import { attachWebSocket } from './transports/websocket'
import { type Authenticate, type Backplane, type ConnectionInfo, type HubMethod } from './types'

export type HubTimings = {
  /** Send a Ping when nothing was sent for this long. */
  keepAliveMs: number
  /** Close (allowReconnect: true, .NET's AbortAllowReconnect) when nothing was received for this long; paused while a method runs. */
  clientTimeoutMs: number
  handshakeTimeoutMs: number
  /** How long a dropped stateful connection waits for its client. */
  statefulGraceMs: number
  /** Connection token lifetime (negotiate → transport connect). */
  tokenTtlMs: number
  /** How long a long-poll GET waits before answering 200 empty. */
  longPollMs: number
}

export type HubOptions = {
  path: string
  secret: string
  authenticate: Authenticate
  /** Origin check for the WebSocket upgrade AND negotiate/transport requests: true = allowed. */
  isAllowedOrigin: (origin: string | undefined, request: IncomingMessage) => boolean
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each method's own argument tuple
  methods: Record<string, HubMethod<any>>
  onConnected?: (connection: ConnectionInfo) => Promise<void> | void
  /** Called once when a connection is gone for good (for stateful reconnect: after the grace period). */
  onDisconnected?: (connection: ConnectionInfo) => Promise<void> | void
  backplane: Backplane
  logger: Logger
  timings?: Partial<HubTimings>
  /** One message's limit (32 KB, .NET's MaximumReceiveMessageSize). */
  maxMessageBytes?: number
  /** Per-connection outgoing limit (1 MB): a slow consumer above it is dropped; also bounds the stateful replay buffer. */
  maxBufferedBytes?: number
  /** Invocations a connection may have waiting (100) before it is closed as a flood. */
  maxQueuedInvocations?: number
  /** Clock for token expiry (ms). */
  now?: () => number
}

export type Hub = {
  handleRequest(request: IncomingMessage, response: ServerResponse): boolean
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean
  addToGroup(connectionId: string, group: string): Promise<void>
  removeFromGroup(connectionId: string, group: string): Promise<void>
  sendToGroup(group: string, target: string, args: readonly unknown[], options?: { exclude?: readonly string[] }): Promise<void>
  sendToConnection(connectionId: string, target: string, args: readonly unknown[]): void
  connections(): Iterable<ConnectionInfo>
  closeConnection(connectionId: string, options: { error?: string; allowReconnect: boolean }): void
  shutdown(): Promise<void>
  stats(): { connections: number; groups: number }
  /** Messages sent to connections and invocations received from them since the hub started (GET /metrics). */
  messageCounts(): { sent: number; received: number }
}

/** .NET's defaults (HubOptionsSetup.cs, HttpConnectionDispatcherOptions), notes §2. */
export const DEFAULT_TIMINGS: HubTimings = {
  keepAliveMs: 15_000,
  clientTimeoutMs: 30_000,
  handshakeTimeoutMs: 15_000,
  statefulGraceMs: 30_000,
  tokenTtlMs: 60_000,
  longPollMs: 90_000,
}
const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024
/** Far above what a person's client sends (SendMessage is limited to one a second). */
const DEFAULT_MAX_QUEUED_INVOCATIONS = 100
const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024

export function createHub(options: HubOptions): Hub {
  const { backplane, logger, secret } = options
  const timings = { ...DEFAULT_TIMINGS, ...options.timings }
  const now = options.now ?? Date.now
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
  const methods = new Map(Object.entries(options.methods).map(([name, method]) => [name.toLowerCase(), method as HubMethod<readonly unknown[]>]))
  const negotiatePath = `${options.path}/negotiate`
  /** Live connections, detached stateful ones included. */
  const live = new Map<string, HubConnection>()
  /** Gone, their disconnected hook still running (it may still remove them from groups). */
  const leaving = new Map<string, HubConnection>()
  const longPolls = new Map<string, LongPolling>()
  const groups = new Map<string, Set<HubConnection>>()
  /** Ended ids until their token can no longer be valid: a replayed token must not revive them. */
  const ended = new Map<string, number>()
  const posting = new Set<string>()
  const hooks = new Set<Promise<void>>()
  let closing = false
  let messagesSent = 0
  let messagesReceived = 0
  // A frame may carry several messages; each is held to maxMessageBytes by the connection.
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxMessageBytes * 4 + 1024, perMessageDeflate: false })

  const host: ConnectionHost = {
    settings: { ...timings, maxMessageBytes, maxBufferedBytes: options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
      maxQueuedInvocations: options.maxQueuedInvocations ?? DEFAULT_MAX_QUEUED_INVOCATIONS,
    },
    logger,
    findMethod: (target) => {
      messagesReceived += 1
      return methods.get(target.toLowerCase())
    },
    async opened(connection) {
      try {
        await options.onConnected?.(connection)
      } catch (error) {
        logger.error({ err: error, connectionId: connection.id }, 'realtime: onConnected failed')
        connection.close({ error: errorText.connectionClosed })
      }
    },
    ended(connection) {
      if (live.get(connection.id) === connection) live.delete(connection.id)
      longPolls.delete(connection.id)
      forget(connection.id)
      leaving.set(connection.id, connection)
      const hook: Promise<void> = (connection.connected ?? Promise.resolve())
        .then(() => (connection.connected ? options.onDisconnected?.(connection) : undefined))
        .catch((error: unknown) => logger.error({ err: error, connectionId: connection.id }, 'realtime: onDisconnected failed'))
        .then(async () => {
          await Promise.all([...connection.groups].map((group) => leaveGroup(connection, group)))
        })
        .catch((error: unknown) => logger.error({ err: error, connectionId: connection.id }, 'realtime: leaving groups failed'))
        .finally(() => {
          leaving.delete(connection.id)
          hooks.delete(hook)
        })
      hooks.add(hook)
    },
  }

  function forget(id: string) {
    const time = now()
    for (const [old, until] of ended) {
      if (until > time) break
      ended.delete(old)
    }
    ended.set(id, time + timings.tokenTtlMs)
  }

  backplane.onFrame((group, frame, exclude) => deliver(group, frame, exclude))

  function deliver(group: string, frame: string, exclude: readonly string[] = []) {
    const members = groups.get(group)
    if (!members) return
    for (const connection of members) {
      if (exclude.includes(connection.id)) continue
      connection.sendFrame(frame)
      messagesSent += 1
    }
  }

  async function leaveGroup(connection: HubConnection, group: string) {
    if (!connection.groups.delete(group)) return
    const members = groups.get(group)
    if (!members?.delete(connection) || members.size > 0) return
    groups.delete(group)
    await backplane.unsubscribe(group)
  }

  function checkOrigin(request: IncomingMessage, response: ServerResponse): boolean {
    if (!options.isAllowedOrigin(request.headers.origin, request)) {
      answerText(response, 403)
      return false
    }
    setCors(request, response)
    return true
  }

  /** The request may open the token's connection here: 404 for an expired or used token, 401 for a different user's credentials. */
  async function admit(request: IncomingMessage, url: URL, payload: TokenPayload, resuming: boolean): Promise<number | undefined> {
    if (closing) return 503
    if (!resuming && (payload.expiresAt <= now() || ended.has(payload.connectionId))) return 404
    if (carriesCredentials(request, url)) {
      const principal = await options.authenticate(request)
      if (principal && (principal.userId !== payload.principal.userId || principal.tenantId !== payload.principal.tenantId)) return 401
    }
    // A token opens one connection, on any instance (issue 36): the first use claims its id.
    if (!resuming && !(await options.backplane.claimConnection(payload.connectionId, payload.expiresAt - now()))) return 404
    return undefined
  }

  async function negotiate(request: IncomingMessage, response: ServerResponse, url: URL) {
    request.resume()
    if (request.method === 'OPTIONS') return checkOrigin(request, response) && answerPreflight(response)
    if (!checkOrigin(request, response)) return
    if (request.method !== 'POST') {
      response.setHeader('Allow', 'POST')
      return answerText(response, 405)
    }
    if (closing) return answerText(response, 503)
    const principal = await options.authenticate(request)
    if (!principal) return answerText(response, 401)
    answerNegotiate(request, response, url, principal, { secret, ttlMs: timings.tokenTtlMs, now: now() })
  }

  async function transportRequest(request: IncomingMessage, response: ServerResponse, url: URL) {
    if (request.method === 'OPTIONS') return checkOrigin(request, response) && answerPreflight(response)
    if (!checkOrigin(request, response)) return
    const token = queryValue(url, 'id')
    if (!token) return answerText(response, 400, 'Connection ID required')
    const payload = readConnectionToken(secret, token)
    if (!payload) return answerText(response, 404, 'No Connection with that ID')
    const id = payload.connectionId
    const existing = live.get(id)
    if (request.method === 'POST') return post(request, response, existing)
    if (request.method === 'DELETE') {
      if (!existing) return answerText(response, 404, 'No Connection with that ID')
      if (existing.transportKind !== 'LongPolling') return answerText(response, 400, 'Cannot terminate this connection using the DELETE endpoint.')
      existing.stop()
      return answerText(response, 202)
    }
    if (request.method !== 'GET') return answerText(response, 405)
    const sse = request.headers.accept?.includes('text/event-stream') ?? false
    if (existing) {
      const poll = longPolls.get(id)
      if (sse || !poll) return answerText(response, 409, 'Another request is already open for this connection.')
      return poll.poll(response)
    }
    const refusal = await admit(request, url, payload, false)
    if (refusal) return answerText(response, refusal)
    if (live.has(id)) return answerText(response, 409)
    if (response.destroyed || request.socket.destroyed) return
    const connection = new HubConnection(id, payload.principal, payload.stateful, host)
    live.set(id, connection)
    if (sse) return attachServerSentEvents(response, connection)
    longPolls.set(id, attachLongPolling(connection, timings.longPollMs))
    // The first poll answers at once: the client waits for it to finish connecting.
    answerText(response, 200)
  }

  function post(request: IncomingMessage, response: ServerResponse, connection: HubConnection | undefined) {
    if (!connection) return answerText(response, 404, 'No Connection with that ID')
    if (connection.transportKind === 'WebSockets') return answerText(response, 405, 'POST requests are not allowed for WebSocket connections.')
    if (posting.has(connection.id)) return answerText(response, 409, 'Another POST is already running for this connection.')
    posting.add(connection.id)
    const decoder = new StringDecoder('utf8')
    const done = () => posting.delete(connection.id)
    request.on('data', (chunk: Buffer) => connection.receive(decoder.write(chunk)))
    request.on('end', () => {
      connection.receive(decoder.end())
      done()
      answerText(response, 200)
    })
    request.on('error', done)
    request.on('close', done)
  }

  async function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer, url: URL) {
    if (!options.isAllowedOrigin(request.headers.origin, request)) return refuseUpgrade(socket, 403)
    if (closing) return refuseUpgrade(socket, 503)
    const token = queryValue(url, 'id')
    let connection: HubConnection
    let resume = false
    if (token === undefined) {
      // skipNegotiation: the upgrade itself must be authenticated.
      const principal = await options.authenticate(request)
      if (!principal) return refuseUpgrade(socket, 401)
      connection = new HubConnection(newConnectionId(), principal, false, host)
    } else {
      const payload = readConnectionToken(secret, token)
      if (!payload) return refuseUpgrade(socket, 404)
      const existing = live.get(payload.connectionId)
      if (existing && !existing.canResume) return refuseUpgrade(socket, 409)
      const refusal = await admit(request, url, payload, existing !== undefined)
      if (refusal) return refuseUpgrade(socket, refusal)
      if (existing) {
        if (live.get(existing.id) !== existing || !existing.canResume) return refuseUpgrade(socket, 404)
        connection = existing
        resume = true
      } else {
        connection = new HubConnection(payload.connectionId, payload.principal, payload.stateful, host)
      }
    }
    if (!resume && live.has(connection.id)) return refuseUpgrade(socket, 409)
    wss.handleUpgrade(request, socket, head, (ws) => {
      if (resume ? !connection.canResume : live.has(connection.id) || closing) return ws.close(1000)
      live.set(connection.id, connection)
      attachWebSocket(ws, connection, resume)
    })
  }

  function failed(error: unknown, what: string) {
    logger.error({ err: error }, `realtime: ${what} failed`)
  }

  function parseUrl(request: IncomingMessage): URL | undefined {
    try {
      return new URL(request.url ?? '/', 'http://hub.invalid')
    } catch {
      return undefined
    }
  }

  return {
    handleRequest(request, response) {
      const url = parseUrl(request)
      if (url?.pathname === negotiatePath) {
        negotiate(request, response, url).catch((error: unknown) => {
          failed(error, 'negotiate')
          answerText(response, 500)
        })
        return true
      }
      if (url?.pathname !== options.path) return false
      transportRequest(request, response, url).catch((error: unknown) => {
        failed(error, 'transport request')
        answerText(response, 500)
      })
      return true
    },

    handleUpgrade(request, socket, head) {
      const url = parseUrl(request)
      if (url?.pathname !== options.path) return false
      socket.on('error', () => {})
      upgrade(request, socket, head, url).catch((error: unknown) => {
        failed(error, 'upgrade')
        refuseUpgrade(socket, 500)
      })
      return true
    },

    async addToGroup(connectionId, group) {
      const connection = live.get(connectionId)
      if (!connection || connection.isEnded || connection.groups.has(group)) return
      connection.groups.add(group)
      const members = groups.get(group)
      if (members) return void members.add(connection)
      groups.set(group, new Set([connection]))
      await backplane.subscribe(group)
    },

    async removeFromGroup(connectionId, group) {
      const connection = live.get(connectionId) ?? leaving.get(connectionId)
      if (connection) await leaveGroup(connection, group)
    },

    async sendToGroup(group, target, args, sendOptions) {
      const frame = formatMessage({ type: MessageType.Invocation, target, arguments: args })
      const exclude = sendOptions?.exclude ?? []
      deliver(group, frame, exclude)
      // Handed to the backplane, not waited for: a method that sends (SendMessage) would otherwise
      // hold its connection's queue for a Redis round trip per message. The backplane keeps the
      // order of what it is given and never throws (a lost Redis drops frames, as .NET's does).
      backplane.publish(group, frame, exclude).catch((error: unknown) => logger.warn({ err: error }, 'realtime: backplane publish failed'))
    },

    sendToConnection(connectionId, target, args) {
      const connection = live.get(connectionId)
      if (!connection) return
      connection.send({ type: MessageType.Invocation, target, arguments: args })
      messagesSent += 1
    },

    *connections() {
      for (const connection of live.values()) if (connection.connected && !connection.isEnded) yield connection
    },

    closeConnection(connectionId, closeOptions) {
      live.get(connectionId)?.close(closeOptions)
    },

    async shutdown() {
      closing = true
      for (const connection of [...live.values()]) connection.close({ allowReconnect: true })
      await Promise.all([...hooks])
      ended.clear()
      await new Promise<void>((resolve) => wss.close(() => resolve()))
    },

    stats: () => ({ connections: live.size + leaving.size, groups: groups.size }),

    messageCounts: () => ({ sent: messagesSent, received: messagesReceived }),
  }
}

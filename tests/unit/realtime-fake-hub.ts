import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'
import type { JoinedRoom, PresenceMember, RoomMessage } from '~/lib/realtime/events'

const RS = '\u001e'

/**
 * A stand-in for the portal's hub, just enough of the SignalR JSON protocol (negotiate v1,
 * WebSockets, handshake, invocations, Close) for the official client to connect to it, so the
 * browser island's connection logic runs against the real client library. Not the server under
 * test: that is tested with its own suites.
 */
export type FakeHub = {
  url: string
  /** What negotiate answers: the hub, or an HTTP status. */
  negotiate: 'ok' | 401 | 404 | 503
  /** How many negotiate requests arrived. */
  negotiations: number
  /** Every invocation received, as `Target(arg, …)`. */
  calls: string[]
  /** Sends an event to every connection. */
  broadcast(target: string, argument: unknown): void
  /** Sends Close to every connection (allowReconnect: as a graceful restart does) and closes them. */
  closeAll(options: { allowReconnect: boolean; error?: string }): void
  /** Drops every socket without a Close (a crash, a lost network). */
  dropAll(): void
  connections(): number
  close(): Promise<void>
}

export async function startFakeHub(options: { path?: string; port?: number; me?: PresenceMember } = {}): Promise<FakeHub> {
  const path = options.path ?? '/hub/realtime'
  const me = options.me ?? { userId: 'u-sam', displayName: 'Sam Site', connections: 1 }
  const sockets = new Set<WebSocket>()
  const http: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost')
    if (request.method === 'POST' && url.pathname === `${path}/negotiate`) {
      hub.negotiations += 1
      if (hub.negotiate !== 'ok') {
        response.writeHead(hub.negotiate).end()
        return
      }
      const body = {
        negotiateVersion: 1,
        connectionId: randomUUID(),
        connectionToken: randomUUID(),
        availableTransports: [{ transport: 'WebSockets', transferFormats: ['Text'] }],
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
      return
    }
    response.writeHead(404).end()
  })
  const wss = new WebSocketServer({ server: http, path })
  wss.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    let handshaken = false
    socket.on('message', (data) => {
      for (const text of data.toString().split(RS).filter(Boolean)) {
        const message = JSON.parse(text) as { type?: number; invocationId?: string; target?: string; arguments?: unknown[] }
        if (!handshaken) {
          handshaken = true
          socket.send(`{}${RS}`)
          continue
        }
        if (message.type === 1 && message.target) answer(socket, message.invocationId, message.target, message.arguments ?? [])
      }
    })
  })

  function send(socket: WebSocket, message: object) {
    socket.send(JSON.stringify(message) + RS)
  }

  function answer(socket: WebSocket, invocationId: string | undefined, target: string, args: unknown[]) {
    hub.calls.push(`${target}(${args.map((a) => JSON.stringify(a)).join(', ')})`)
    const reply = (result: unknown) => invocationId !== undefined && send(socket, { type: 3, invocationId, result })
    const refuse = (sentence: string) =>
      invocationId !== undefined &&
      send(socket, { type: 3, invocationId, error: `An unexpected error occurred invoking '${target}' on the server. HubException: ${sentence}` })
    const room = String(args[0])
    switch (target) {
      case 'JoinRoom': {
        if (!room.startsWith('item:')) return refuse('You cannot open this discussion.')
        const joined: JoinedRoom = { room, history: [], members: [me] }
        return reply(joined)
      }
      case 'LeaveRoom':
        return reply(null)
      case 'SendMessage': {
        const text = String(args[1])
        if (text.trim() === '') return refuse('A message needs some text.')
        const message: RoomMessage = {
          id: randomUUID(),
          room,
          text,
          sentAt: new Date().toISOString(),
          sender: { userId: me.userId, displayName: me.displayName },
        }
        send(socket, { type: 1, target: 'ReceiveMessage', arguments: [message] })
        return reply(message)
      }
      default:
        if (invocationId !== undefined) send(socket, { type: 3, invocationId, error: `Unknown hub method '${target}'` })
    }
  }

  await new Promise<void>((resolve) => http.listen(options.port ?? 0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  const hub: FakeHub = {
    url: `http://127.0.0.1:${port}${path}`,
    negotiate: 'ok',
    negotiations: 0,
    calls: [],
    broadcast(target, argument) {
      for (const socket of sockets) send(socket, { type: 1, target, arguments: [argument] })
    },
    closeAll({ allowReconnect, error }) {
      for (const socket of sockets) {
        send(socket, { type: 7, ...(error && { error }), ...(allowReconnect && { allowReconnect: true }) })
        socket.close(1000)
      }
    },
    dropAll() {
      for (const socket of sockets) socket.terminate()
    },
    connections: () => sockets.size,
    async close() {
      for (const socket of sockets) socket.terminate()
      wss.close()
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
  return hub
}

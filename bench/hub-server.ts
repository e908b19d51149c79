// One server for bench/hub.bench.ts, run in its own process: a bare SignalR hub (`createHub`, a fake
// bearer authenticator, the memory or the Redis backplane) or, as the peer to beat, a socket.io
// server doing the same room fan-out. Every connection joins the group `bench`; the method
// `Broadcast(sentAt)` / event `broadcast` sends `Tick(sentAt)` / `tick` to the whole group.
// `GET /stats` answers the process's memory (after a GC) and its connection count.
// Environment: BENCH_KIND=signalr|socketio, BENCH_PORT, BENCH_REDIS_URL + BENCH_CHANNEL_PREFIX (signalr only).
import { createServer, type ServerResponse } from 'node:http'
import { Server as SocketIoServer } from 'socket.io'
import { z } from 'zod'
import { createLogger } from '#server/http/logger'
import { createMemoryBackplane } from '#server/realtime/memory-backplane'
import { createRedisBackplane } from '#server/realtime/redis-backplane'
import type { Backplane, HubMethod } from '#server/realtime/types'

const GROUP = 'bench'
const kind = process.env.BENCH_KIND ?? 'signalr'
const port = Number(process.env.BENCH_PORT ?? 0)
const logger = createLogger('warn')

const server = createServer()
let connections: () => number

if (kind === 'socketio') {
  const io = new SocketIoServer(server, { transports: ['websocket'], serveClient: false })
  io.on('connection', (socket) => {
    void socket.join(GROUP)
    socket.on('broadcast', (sentAt: number) => {
      io.to(GROUP).emit('tick', sentAt)
    })
  })
  connections = () => io.engine.clientsCount
  server.on('request', (request, response) => {
    if (request.url === '/stats') return stats(response)
  })
} else {
  // Imported here so the socket.io half runs even where the hub is not built yet.
  const { createHub } = await import('#server/realtime/hub')
  const redisUrl = process.env.BENCH_REDIS_URL
  const backplane: Backplane = redisUrl
    ? await createRedisBackplane({ url: redisUrl, logger, channelPrefix: process.env.BENCH_CHANNEL_PREFIX ?? 'bench:hub' })
    : createMemoryBackplane()
  const broadcast: HubMethod<[number]> = {
    args: z.tuple([z.number()]),
    run: async (_connection, sentAt) => hub.sendToGroup(GROUP, 'Tick', [sentAt]),
  }
  const hub = createHub({
    path: '/hub',
    secret: 'bench-secret-0123456789abcdefghijklmnopqrstuvwxyz',
    // Any bearer token is a user: the bench measures the protocol and the fan-out, not sessions.
    authenticate: async (request) => {
      const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1]
      return token ? { userId: token, tenantId: 'bench', sessionId: token, displayName: token } : undefined
    },
    isAllowedOrigin: () => true,
    methods: { Broadcast: broadcast },
    onConnected: (connection) => hub.addToGroup(connection.id, GROUP),
    backplane,
    logger,
    // Generous keep-alives: 20,000 idle connections must not be timed out while the load generator is busy.
    timings: { keepAliveMs: 15_000, clientTimeoutMs: 120_000, handshakeTimeoutMs: 60_000 },
  })
  connections = () => hub.stats().connections
  server.on('request', (request, response) => {
    if (request.url === '/stats') return stats(response)
    if (!hub.handleRequest(request, response)) {
      response.statusCode = 404
      response.end()
    }
  })
  server.on('upgrade', (request, socket, head) => {
    if (!hub.handleUpgrade(request, socket, head)) socket.destroy()
  })
}

function stats(response: ServerResponse) {
  globalThis.gc?.()
  const memory = process.memoryUsage()
  response.setHeader('content-type', 'application/json')
  response.end(JSON.stringify({ rss: memory.rss, heapUsed: memory.heapUsed, connections: connections() }))
}

server.listen(port, '127.0.0.1', () => {
  const address = server.address()
  console.log(JSON.stringify({ ready: typeof address === 'object' && address ? address.port : port }))
})

import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'

/**
 * A small load balancer for tests and benches (tests/multi, bench/load.ts): every HTTP request, and
 * every WebSocket upgrade, goes to the next upstream in turn — no affinity, so consecutive requests
 * of one client (even on one keep-alive connection) land on different instances, which is the point.
 * It appends the client's address to X-Forwarded-For and sets X-Forwarded-Proto/Host as a real
 * proxy does (instances behind it run with TRUST_PROXY=true). An upstream that cannot be reached
 * answers 502; with no upstream left, 503. Upstreams can be removed (an instance going away) and
 * added back while it runs.
 */
export type RoundRobinProxy = {
  /** http://127.0.0.1:<port> */
  url: string
  upstreams(): string[]
  add(upstream: string): void
  remove(upstream: string): void
  close(): Promise<void>
}

export type ProxiedRequest = { method: string; url: string; upstream: string; status: number | 'upgrade' | 'failed' }

export type RoundRobinOptions = {
  port?: number
  /** Told of every request once it is answered (or failed), with the upstream that took it. */
  onProxied?: (request: ProxiedRequest) => void
}

/** Connection-level headers: they describe one hop, never the next (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'])

function forwardedHeaders(request: IncomingMessage, keep: Set<string> = new Set()): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {}
  const listed = new Set((request.headers.connection ?? '').split(',').map((name) => name.trim().toLowerCase()))
  for (const [name, value] of Object.entries(request.headers)) {
    if ((HOP_BY_HOP.has(name) || listed.has(name)) && !keep.has(name)) continue
    headers[name] = value
  }
  const client = request.socket.remoteAddress ?? ''
  headers['x-forwarded-for'] = request.headers['x-forwarded-for'] ? `${request.headers['x-forwarded-for']}, ${client}` : client
  headers['x-forwarded-proto'] = 'http'
  if (request.headers.host) headers['x-forwarded-host'] = request.headers.host
  return headers
}

export async function startRoundRobinProxy(initial: string[], options: RoundRobinOptions = {}): Promise<RoundRobinProxy> {
  const upstreams = [...initial]
  let turn = 0
  const next = () => {
    if (upstreams.length === 0) return undefined
    turn = (turn + 1) % upstreams.length
    return upstreams[turn]
  }
  // Kept-alive connections to the instances, as many as the load needs.
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity })
  const sockets = new Set<Socket>()
  const report = (request: IncomingMessage, upstream: string, status: ProxiedRequest['status']) =>
    options.onProxied?.({ method: request.method ?? 'GET', url: request.url ?? '/', upstream, status })

  const server = createServer((request, response) => {
    const upstream = next()
    if (!upstream) {
      response.writeHead(503, { 'content-type': 'text/plain' }).end('no upstream')
      return
    }
    const target = new URL(request.url ?? '/', upstream)
    const outgoing = httpRequest(target, { method: request.method, headers: forwardedHeaders(request), agent }, (answer) => {
      const headers: IncomingHttpHeaders = {}
      for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value
      response.writeHead(answer.statusCode ?? 502, headers)
      answer.pipe(response)
      answer.once('end', () => report(request, upstream, answer.statusCode ?? 502))
      answer.once('error', () => response.destroy())
    })
    outgoing.once('error', () => {
      report(request, upstream, 'failed')
      if (response.headersSent) response.destroy()
      else response.writeHead(502, { 'content-type': 'text/plain' }).end(`upstream ${upstream} failed`)
    })
    // A client that goes away mid-request (a cut upload) cuts the upstream request too.
    response.once('close', () => {
      if (!response.writableFinished) outgoing.destroy()
    })
    request.pipe(outgoing)
  })

  server.on('upgrade', (request: IncomingMessage, client: Socket, head: Buffer) => {
    const upstream = next()
    if (!upstream) {
      client.end('HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\n\r\n')
      return
    }
    const target = new URL(upstream)
    const peer = connect(Number(target.port), target.hostname)
    sockets.add(client).add(peer)
    const forget = () => {
      sockets.delete(client)
      sockets.delete(peer)
      client.destroy()
      peer.destroy()
    }
    let connected = false
    peer.once('connect', () => {
      connected = true
      const headers = forwardedHeaders(request, new Set(['connection', 'upgrade']))
      const lines = Object.entries(headers).flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((v) => `${name}: ${v}`))
      peer.write(`${request.method} ${request.url} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`)
      if (head.length > 0) peer.write(head)
      peer.pipe(client)
      client.pipe(peer)
      report(request, upstream, 'upgrade')
    })
    peer.on('error', () => {
      if (connected) return
      report(request, upstream, 'failed')
      client.end('HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\n')
    })
    peer.once('close', forget)
    client.once('close', forget)
    client.on('error', forget)
  })

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    upstreams: () => [...upstreams],
    add(upstream) {
      if (!upstreams.includes(upstream)) upstreams.push(upstream)
    },
    remove(upstream) {
      const at = upstreams.indexOf(upstream)
      if (at >= 0) upstreams.splice(at, 1)
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      server.closeAllConnections()
      agent.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

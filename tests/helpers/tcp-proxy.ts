import { once } from 'node:events'
import { connect, createServer, type Server, type Socket } from 'node:net'

export type TcpTarget = { host: string; port: number }

export type TcpProxy = {
  /** The proxy's own port on 127.0.0.1 (the same after a cut and a restore). */
  port(): number
  /** Drops every connection and closes the port: the service is gone (connections are refused). */
  cut(): Promise<void>
  /** Listens again on the same port: new connections reach the service again. */
  restore(): Promise<void>
  /** Connections open now (each counts its two sockets). */
  sockets(): number
}

/**
 * A TCP proxy in front of a real service (PostgreSQL, Redis) that a test or bench can cut
 * (sockets destroyed, port closed) and restore on the same port: an outage without touching the
 * real server. The caller closes it with `cut` when done.
 */
export async function tcpProxy(target: TcpTarget): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  let server: Server | undefined
  let port = 0
  async function listen() {
    server = createServer((client) => {
      const upstream = connect(target.port, target.host)
      for (const socket of [client, upstream]) {
        sockets.add(socket)
        socket.on('error', () => {})
        socket.on('close', () => {
          sockets.delete(socket)
          client.destroy()
          upstream.destroy()
        })
      }
      client.pipe(upstream).pipe(client)
    })
    server.listen(port, '127.0.0.1')
    await once(server, 'listening')
    const address = server.address()
    if (address && typeof address === 'object') port = address.port
  }
  async function cut() {
    const closing = server ? new Promise((resolve) => server?.close(resolve)) : undefined
    server = undefined
    for (const socket of sockets) socket.destroy()
    await closing
  }
  await listen()
  return { port: () => port, cut, restore: listen, sockets: () => sockets.size }
}

/** `url` with its host and port replaced by the proxy's (postgres://user@proxy/db). */
export function throughProxy(url: string, proxy: TcpProxy): string {
  const proxied = new URL(url)
  proxied.hostname = '127.0.0.1'
  proxied.port = String(proxy.port())
  return proxied.toString()
}

/** The host and port a postgres:// or redis:// URL points at. */
export function targetOf(url: string, defaultPort: number): TcpTarget {
  const parsed = new URL(url)
  return { host: parsed.hostname || '127.0.0.1', port: Number(parsed.port) || defaultPort }
}

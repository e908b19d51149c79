import { once } from 'node:events'
import { connect, createServer, type Server, type Socket } from 'node:net'

/**
 * A TCP proxy in front of this machine's Redis that a test can cut (sockets destroyed, port
 * closed) and restore on the same port: a Redis outage without touching the real server. The
 * caller closes it with `cut` when the test ends.
 */
export async function redisProxy(target = { host: '127.0.0.1', port: 6379 }) {
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
    for (const socket of sockets) socket.destroy()
    await closing
  }
  await listen()
  return { url: () => `redis://127.0.0.1:${port}`, cut, restore: listen, sockets: () => sockets.size }
}

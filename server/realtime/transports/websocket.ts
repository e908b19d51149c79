import { type WebSocket } from 'ws'
import { type HubConnection, type Transport } from '../connection'

/**
 * Carries a connection over one WebSocket: text frames out, text or binary (read as UTF-8) in.
 *
 * Messages written in the same turn of the event loop leave as one WebSocket frame (the protocol
 * separates messages with a record separator, so a frame may carry several). Under a light load
 * every message still leaves at once, one per turn; under a heavy one a connection gets a few
 * larger writes instead of a system call per message (docs/performance.md "Realtime hub").
 */
export function attachWebSocket(socket: WebSocket, connection: HubConnection, resume: boolean): void {
  let pending: string[] = []
  let pendingBytes = 0
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (pending.length === 0) return
    const text = pending.length === 1 ? (pending[0] as string) : pending.join('')
    pending = []
    pendingBytes = 0
    if (socket.readyState === socket.OPEN) socket.send(text)
  }
  const transport: Transport = {
    kind: 'WebSockets',
    send(text) {
      if (socket.readyState !== socket.OPEN) return
      pending.push(text)
      pendingBytes += text.length
      if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
    },
    bufferedBytes: () => socket.bufferedAmount + pendingBytes,
    // ws stops reading the TCP socket: the client's sends wait in its own buffers and the kernel's.
    pauseReading: () => socket.pause(),
    resumeReading: () => socket.resume(),
    close(abort) {
      if (abort) {
        pending = []
        socket.terminate()
      } else {
        // What was written before the close (the Close message itself) leaves first.
        flush()
        socket.close(1000)
      }
    },
  }
  socket.on('message', (data) => {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)
    connection.receive(bytes.toString('utf8'))
  })
  socket.on('close', () => connection.transportClosed(transport))
  // A reset socket also emits close; the error itself says nothing we act on.
  socket.on('error', () => {})
  if (resume) connection.resume(transport)
  else connection.attach(transport)
}

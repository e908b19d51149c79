import { type WebSocket } from 'ws'
import { type HubConnection, type Transport } from '../connection'

/** Carries a connection over one WebSocket: text frames out, text or binary (read as UTF-8) in. */
export function attachWebSocket(socket: WebSocket, connection: HubConnection, resume: boolean): void {
  const transport: Transport = {
    kind: 'WebSockets',
    send(text) {
      if (socket.readyState === socket.OPEN) socket.send(text)
    },
    bufferedBytes: () => socket.bufferedAmount,
    close(abort) {
      if (abort) socket.terminate()
      else socket.close(1000)
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

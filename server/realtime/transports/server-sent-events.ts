import { type ServerResponse } from 'node:http'
import { type HubConnection, type Transport } from '../connection'

/**
 * Server-sent events: frames as `data:` lines on one long GET response; the client sends with
 * POST (handled by the hub). A frame never holds a raw newline (JSON escapes them), but the SSE
 * format is followed anyway: one `data:` line per line.
 */
export function attachServerSentEvents(response: ServerResponse, connection: HubConnection): void {
  response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' })
  // Some proxies hold the headers back until the body starts.
  response.write(':\r\n\r\n')
  const transport: Transport = {
    kind: 'ServerSentEvents',
    send(text) {
      if (response.writableEnded) return
      response.write(
        text
          .split(/\r\n|\r|\n/)
          .map((line) => `data: ${line}\r\n`)
          .join('') + '\r\n',
      )
    },
    bufferedBytes: () => response.writableLength,
    close(abort) {
      if (abort) response.destroy()
      else response.end()
    },
  }
  response.on('close', () => connection.transportClosed(transport))
  connection.attach(transport)
}

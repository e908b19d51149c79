import { type ServerResponse } from 'node:http'
import { type HubConnection, type Transport } from '../connection'

/**
 * Long polling: frames wait in a queue until the client's next GET takes them. A poll with
 * nothing to take answers 200 empty after `longPollMs` (poll again); once the connection has
 * ended, a poll answers 204 (TransportProtocols.md).
 */
export type LongPolling = Transport & {
  /** A GET from the client. */
  poll(response: ServerResponse): void
}

export function attachLongPolling(connection: HubConnection, longPollMs: number): LongPolling {
  let queue: string[] = []
  let queuedBytes = 0
  let ended = false
  let waiting: { response: ServerResponse; timer: NodeJS.Timeout } | undefined

  function answer(status: 200 | 204, body = '') {
    const current = waiting
    if (!current) return
    waiting = undefined
    clearTimeout(current.timer)
    current.response.writeHead(status, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache' })
    current.response.end(body)
  }

  function flush() {
    if (!waiting || queue.length === 0) return
    const body = queue.join('')
    queue = []
    queuedBytes = 0
    answer(200, body)
  }

  const transport: LongPolling = {
    kind: 'LongPolling',
    send(text) {
      if (ended) return
      queue.push(text)
      queuedBytes += Buffer.byteLength(text)
      flush()
    },
    bufferedBytes: () => queuedBytes,
    close() {
      if (ended) return
      ended = true
      // What is still queued (a Close message) goes out with the pending poll; the next poll gets 204.
      if (queue.length > 0) flush()
      else answer(204)
    },
    poll(response) {
      if (waiting) answer(204)
      if (ended && queue.length === 0) {
        response.writeHead(204).end()
        return
      }
      const timer = setTimeout(() => answer(200), longPollMs)
      waiting = { response, timer }
      response.on('close', () => {
        if (waiting?.response !== response) return
        clearTimeout(timer)
        waiting = undefined
      })
      flush()
    },
  }
  connection.attach(transport)
  return transport
}

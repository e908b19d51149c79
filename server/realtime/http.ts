import { type IncomingMessage, type ServerResponse } from 'node:http'
import { type Duplex } from 'node:stream'

/** Small HTTP helpers shared by negotiate and the transports. */

const ALLOWED_HEADERS = 'authorization, x-requested-with, x-signalr-user-agent, content-type'
const ALLOWED_METHODS = 'GET, POST, DELETE'

/** Reflects an allowed Origin with credentials (the client sends credentials by default, notes §1). */
export function setCors(request: IncomingMessage, response: ServerResponse): void {
  const origin = request.headers.origin
  if (!origin) return
  response.setHeader('Access-Control-Allow-Origin', origin)
  response.setHeader('Access-Control-Allow-Credentials', 'true')
  response.setHeader('Vary', 'Origin')
}

export function answerPreflight(response: ServerResponse): void {
  response.writeHead(204, { 'Access-Control-Allow-Headers': ALLOWED_HEADERS, 'Access-Control-Allow-Methods': ALLOWED_METHODS, 'Access-Control-Max-Age': '600' })
  response.end()
}

export function answerText(response: ServerResponse, status: number, text = ''): void {
  if (response.headersSent) {
    response.end()
    return
  }
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache' })
  response.end(text)
}

export function answerJson(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' })
  response.end(JSON.stringify(value))
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
}

/** Refuses an upgrade before switching protocols (the client sees the status; a Close message would only make it retry). */
export function refuseUpgrade(socket: Duplex, status: number): void {
  if (socket.writable) socket.end(`HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
  socket.destroy()
}

/** True when the request carries credentials of its own (cookie, bearer header, or a browser's `access_token` query). */
export function carriesCredentials(request: IncomingMessage, url: URL): boolean {
  return request.headers.authorization !== undefined || request.headers.cookie !== undefined || url.searchParams.has('access_token')
}

/** A query parameter looked up case-insensitively, as ASP.NET Core does. */
export function queryValue(url: URL, name: string): string | undefined {
  const wanted = name.toLowerCase()
  for (const [key, value] of url.searchParams) if (key.toLowerCase() === wanted) return value
  return undefined
}

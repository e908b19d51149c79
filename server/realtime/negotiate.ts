import { type IncomingMessage, type ServerResponse } from 'node:http'
import { newConnectionId, signConnectionToken } from './connection-token'
import { answerJson, queryValue } from './http'
import { type Principal } from './types'

/** Negotiate versions we speak (TransportProtocols.md; HttpConnectionDispatcher.ProcessNegotiate). */
const MIN_NEGOTIATE_VERSION = 0
const MAX_NEGOTIATE_VERSION = 1

const AVAILABLE_TRANSPORTS = [
  { transport: 'WebSockets', transferFormats: ['Text', 'Binary'] },
  { transport: 'ServerSentEvents', transferFormats: ['Text'] },
  { transport: 'LongPolling', transferFormats: ['Text', 'Binary'] },
]

/**
 * Answers an authenticated negotiate. Version 1: a public connectionId and the signed token;
 * version 0 has no token, and the client uses connectionId as its `id`, so there the token is
 * the connectionId.
 */
export function answerNegotiate(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  principal: Principal,
  token: { secret: string; ttlMs: number; now: number },
): void {
  const asked = queryValue(url, 'negotiateVersion')
  let version = 0
  if (asked !== undefined) {
    const parsed = /^-?\d+$/.test(asked.trim()) ? Number(asked) : Number.NaN
    if (!Number.isSafeInteger(parsed) || parsed < MIN_NEGOTIATE_VERSION) {
      return answerJson(response, 200, { error: `The client requested an invalid protocol version '${asked}'` })
    }
    version = Math.min(parsed, MAX_NEGOTIATE_VERSION)
  }
  const stateful = queryValue(url, 'useStatefulReconnect')?.toLowerCase() === 'true'
  const connectionId = newConnectionId()
  const connectionToken = signConnectionToken(token.secret, { connectionId, principal, expiresAt: token.now + token.ttlMs, stateful })
  const body: Record<string, unknown> =
    version === 0
      ? { negotiateVersion: 0, connectionId: connectionToken, availableTransports: AVAILABLE_TRANSPORTS }
      : { negotiateVersion: version, connectionId, connectionToken, availableTransports: AVAILABLE_TRANSPORTS }
  if (stateful) body.useStatefulReconnect = true
  answerJson(response, 200, body)
}

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { z } from 'zod'
import type { Principal } from './types'

/**
 * The connection token negotiate hands out: `base64url(payload).base64url(HMAC-SHA256)`, so any
 * instance can check it without shared state (notes/signalr-protocol.md §4 "Sticky sessions").
 * URL-safe, because the client puts it in `?id=` without encoding it. The payload is signed, not
 * encrypted: it holds nothing the user does not already know about themself.
 */

export type TokenPayload = {
  /** The public connection id. */
  connectionId: string
  principal: Principal
  /** Expiry, ms since the epoch. */
  expiresAt: number
  /** Stateful reconnect was negotiated. */
  stateful: boolean
}

const payloadSchema = z.object({
  c: z.string().min(1).max(100),
  p: z.object({ userId: z.string(), tenantId: z.string(), sessionId: z.string(), displayName: z.string() }),
  e: z.number(),
  s: z.boolean(),
})

export function newConnectionId(): string {
  return randomBytes(16).toString('base64url')
}

function mac(secret: string, body: string): Buffer {
  return createHmac('sha256', secret).update(body).digest()
}

export function signConnectionToken(secret: string, payload: TokenPayload): string {
  const { connectionId: c, principal: p, expiresAt: e, stateful: s } = payload
  const body = Buffer.from(
    JSON.stringify({ c, p: { userId: p.userId, tenantId: p.tenantId, sessionId: p.sessionId, displayName: p.displayName }, e, s }),
  ).toString('base64url')
  return `${body}.${mac(secret, body).toString('base64url')}`
}

/** The payload of a token this secret signed, expired or not (the caller decides what expiry means); undefined if forged or malformed. */
export function readConnectionToken(secret: string, token: string): TokenPayload | undefined {
  if (token.length > 4096) return undefined
  const [body, signature, extra] = token.split('.')
  if (!body || !signature || extra !== undefined) return undefined
  const expected = mac(secret, body)
  const given = Buffer.from(signature, 'base64url')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
  let json: unknown
  try {
    json = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
  const parsed = payloadSchema.safeParse(json)
  if (!parsed.success) return undefined
  return { connectionId: parsed.data.c, principal: parsed.data.p, expiresAt: parsed.data.e, stateful: parsed.data.s }
}

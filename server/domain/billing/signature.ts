import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * Stripe's webhook signature scheme, which both providers use
 * (https://docs.stripe.com/webhooks#verify-manually): the `Stripe-Signature` header is
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the endpoint secret>` (more than
 * one v1 while a secret is being rolled). A delivery whose timestamp is more than the tolerance
 * away from our clock is refused, so a captured delivery cannot be replayed later.
 */
export const SIGNATURE_HEADER = 'stripe-signature'
/** Stripe's default tolerance: five minutes. */
export const SIGNATURE_TOLERANCE_SECONDS = 5 * 60

export function signPayload(secret: string, rawBody: string, at: Date): string {
  const timestamp = Math.floor(at.getTime() / 1000)
  return `t=${timestamp},v1=${hmac(secret, timestamp, rawBody)}`
}

export type SignatureCheck = { ok: true } | { ok: false; reason: 'signature' | 'timestamp'; detail: string }

export function verifySignature(secret: string, rawBody: string, header: string | null, now: Date): SignatureCheck {
  const parsed = parseHeader(header)
  if (!parsed) return { ok: false, reason: 'signature', detail: 'The Stripe-Signature header is missing or not in the form t=…,v1=….' }
  const expected = Buffer.from(hmac(secret, parsed.timestamp, rawBody), 'utf8')
  const matches = parsed.signatures.some((candidate) => {
    const actual = Buffer.from(candidate, 'utf8')
    return actual.length === expected.length && timingSafeEqual(actual, expected)
  })
  if (!matches) return { ok: false, reason: 'signature', detail: 'The signature does not match the body: the event was not sent by the payment provider, or was changed on the way.' }
  if (Math.abs(now.getTime() / 1000 - parsed.timestamp) > SIGNATURE_TOLERANCE_SECONDS) {
    return { ok: false, reason: 'timestamp', detail: 'The signature was made more than five minutes away from now: an old delivery is not accepted again.' }
  }
  return { ok: true }
}

function hmac(secret: string, timestamp: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex')
}

function parseHeader(header: string | null): { timestamp: number; signatures: string[] } | null {
  if (!header || header.length > 4096) return null
  let timestamp: number | null = null
  const signatures: string[] = []
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2)
    if (key === 't' && value && /^\d{1,12}$/.test(value)) timestamp = Number(value)
    else if (key === 'v1' && value && /^[0-9a-f]{64}$/.test(value)) signatures.push(value)
  }
  return timestamp === null || signatures.length === 0 ? null : { timestamp, signatures }
}

import { createHmac, timingSafeEqual } from 'node:crypto'
import { isUuid } from '~/lib/schemas/uuid'

/**
 * The signed token of an outside contact's transmittal link (decision 024): `base64url(payload)
 * "." base64url(HMAC-SHA256)` under a key derived from the server's secret; the payload names the
 * tenant, the link row and its expiry. Signing is deterministic, so the same row signs the same
 * link again (the superseded notice mails the link the contact already holds). It lives below the
 * feature folders: doc-control sends and opens links, documents mails them when a revision is
 * superseded.
 */

export type LinkPayload = { tenantId: string; linkId: string; expiresAt: number }

/** What mailing an outside contact's link needs: the portal's public address and the server's secret (config.sessionSecret). */
export type OutsideLinks = { publicUrl: string; linkSecret: string }

function linkKey(secret: string): Buffer {
  return createHmac('sha256', secret).update('transmittal-link-v1').digest()
}

export function signLinkToken(secret: string, payload: LinkPayload): string {
  const body = Buffer.from(JSON.stringify({ t: payload.tenantId, l: payload.linkId, e: payload.expiresAt })).toString('base64url')
  return `${body}.${createHmac('sha256', linkKey(secret)).update(body).digest('base64url')}`
}

/** The payload of a token this server signed; undefined when malformed or forged (the caller answers 404 alike). */
export function readLinkToken(secret: string, token: string): LinkPayload | undefined {
  if (token.length > 512) return undefined
  const [body, signature, extra] = token.split('.')
  if (!body || !signature || extra !== undefined) return undefined
  const expected = createHmac('sha256', linkKey(secret)).update(body).digest()
  const given = Buffer.from(signature, 'base64url')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
  try {
    const json = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { t?: unknown; l?: unknown; e?: unknown }
    if (typeof json.t !== 'string' || typeof json.l !== 'string' || typeof json.e !== 'number' || !isUuid(json.t) || !isUuid(json.l)) return undefined
    return { tenantId: json.t, linkId: json.l, expiresAt: json.e }
  } catch {
    return undefined
  }
}

export function sharedPath(token: string): string {
  return `/shared/transmittals/${token}`
}

/** The whole address of a link row's page, as its mails carry it. */
export function sharedUrl(links: OutsideLinks, payload: LinkPayload): string {
  return `${links.publicUrl}${sharedPath(signLinkToken(links.linkSecret, payload))}`
}

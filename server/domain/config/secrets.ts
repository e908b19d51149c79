import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

/**
 * Configuration secrets (SMTP password, OIDC client secret) are sealed with AES-256-GCM under a
 * key derived with HKDF-SHA256 from the server's session secret, and bound to the organisation,
 * category and field they belong to (the additional data), so a sealed value copied elsewhere
 * does not open. Stored as `v1.{iv}.{tag}.{ciphertext}` (base64url). Changing SESSION_SECRET makes
 * saved secrets unreadable: they must be typed again (docs/admin/configuration.md "Secrets").
 */

const VERSION = 'v1'
const IV_BYTES = 12

function keyOf(sessionSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', sessionSecret, 'site-portal', 'admin-config-secrets/v1', 32))
}

function aad(tenantId: string, category: string, field: string): Buffer {
  return Buffer.from(`${tenantId}/${category}/${field}`, 'utf8')
}

export type SecretPlace = { tenantId: string; category: string; field: string }

export function sealSecret(sessionSecret: string, place: SecretPlace, plain: string): string {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', keyOf(sessionSecret), iv)
  cipher.setAAD(aad(place.tenantId, place.category, place.field))
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
  return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.')
}

/** The plain secret, or undefined when it cannot be opened (another key, tampered, another place). */
export function openSecret(sessionSecret: string, place: SecretPlace, sealed: string): string | undefined {
  const [version, iv, tag, body] = sealed.split('.')
  if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) return undefined
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(sessionSecret), Buffer.from(iv, 'base64url'))
    decipher.setAAD(aad(place.tenantId, place.category, place.field))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
  } catch {
    return undefined
  }
}

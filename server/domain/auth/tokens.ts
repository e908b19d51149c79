import { createHash, randomBytes } from 'node:crypto'

/** Opaque bearer tokens: the client holds the token, the database only its SHA-256. */
export function newToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url')
  return { token, hash: hashToken(token) }
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url')
}

import { createHash, sign, verify, X509Certificate, type KeyObject } from 'node:crypto'

/**
 * Compact JWS and JWT, as far as the stores need them (RFC 7515/7519): signing our own bearer
 * tokens (ES256 for Apple, RS256 for Google) and checking Apple's signed transactions, whose
 * header carries the certificate chain (x5c). node:crypto does it all; no library needed.
 */

export class JwsError extends Error {}

function base64url(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url')
}

/** A signed JWT: ES256 signatures in the JOSE form (r‖s), not DER. */
export function signJwt(header: Record<string, unknown>, claims: Record<string, unknown>, key: KeyObject): string {
  const alg = header.alg
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`
  const signature =
    alg === 'ES256' ? sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }) : sign('sha256', Buffer.from(input), key)
  return `${input}.${signature.toString('base64url')}`
}

type Decoded = { header: Record<string, unknown>; payload: Record<string, unknown>; input: Buffer; signature: Buffer }

function decodePart(part: string): Record<string, unknown> {
  const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'))
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new JwsError('a JWS part is not a JSON object')
  return value as Record<string, unknown>
}

function decode(jws: string): Decoded {
  const parts = jws.split('.')
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p))) throw new JwsError('not a compact JWS')
  const [header = '', payload = '', signature = ''] = parts
  try {
    return { header: decodePart(header), payload: decodePart(payload), input: Buffer.from(`${header}.${payload}`), signature: Buffer.from(signature, 'base64url') }
  } catch (error) {
    if (error instanceof JwsError) throw error
    throw new JwsError('a JWS part is not base64url JSON')
  }
}

/**
 * Apple's signed data (JWSTransaction, JWSRenewalInfo): ES256, signed by the leaf of its x5c chain.
 * Checked as Apple's own libraries do: the signature with the leaf's key; each certificate signed
 * by the next and valid at `at`; the leaf and intermediate carrying Apple's marker extensions; and
 * the chain's last certificate one of the trusted roots (by SHA-256 fingerprint). Answers the payload.
 */
export function verifyAppleJws(jws: string, trustedRootFingerprints: readonly string[], at: Date): Record<string, unknown> {
  const { header, payload, input, signature } = decode(jws)
  if (header.alg !== 'ES256') throw new JwsError('the signed data is not ES256')
  const chain = certificateChain(header.x5c)
  const [leaf, intermediate, root] = chain
  if (!leaf || !intermediate || !root) throw new JwsError('the certificate chain is incomplete')
  for (const [index, certificate] of chain.entries()) {
    if (new Date(certificate.validFrom) > at || new Date(certificate.validTo) < at) throw new JwsError('a certificate of the chain is not valid now')
    const issuer = chain[index + 1] ?? certificate
    if (!certificate.verify(issuer.publicKey)) throw new JwsError('the certificate chain is broken')
  }
  const rootFingerprint = createHash('sha256').update(root.raw).digest('hex')
  if (!trustedRootFingerprints.includes(rootFingerprint)) throw new JwsError('the chain does not end at a trusted Apple root')
  if (!hasExtension(leaf, APPLE_LEAF_OID) || !hasExtension(intermediate, APPLE_INTERMEDIATE_OID)) throw new JwsError('the chain lacks Apple’s certificate markers')
  if (!verify('sha256', input, { key: leaf.publicKey, dsaEncoding: 'ieee-p1363' }, signature)) throw new JwsError('the signature does not match')
  return payload
}

function certificateChain(x5c: unknown): X509Certificate[] {
  if (!Array.isArray(x5c) || x5c.length !== 3 || !x5c.every((c) => typeof c === 'string')) throw new JwsError('the signed data carries no x5c chain of three')
  try {
    return x5c.map((der: string) => new X509Certificate(Buffer.from(der, 'base64')))
  } catch {
    throw new JwsError('a certificate of the chain cannot be read')
  }
}

/** Apple's marker extensions: Mac App Store receipt signing (leaf), Apple WWDR intermediate. */
const APPLE_LEAF_OID = '1.2.840.113635.100.6.11.1'
const APPLE_INTERMEDIATE_OID = '1.2.840.113635.100.6.2.1'

/** Whether the certificate's DER carries the extension's OID (node:crypto does not list extensions). */
function hasExtension(certificate: X509Certificate, oid: string): boolean {
  return certificate.raw.includes(oidDer(oid))
}

function oidDer(oid: string): Buffer {
  const [first = 0, second = 0, ...rest] = oid.split('.').map(Number)
  const bytes = [40 * first + second]
  for (const arc of rest) {
    const groups = [arc & 0x7f]
    for (let value = arc >>> 7; value > 0; value >>>= 7) groups.unshift((value & 0x7f) | 0x80)
    bytes.push(...groups)
  }
  return Buffer.from([0x06, bytes.length, ...bytes])
}

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
 * Checked as Apple's own libraries do: the signature with the leaf's key; each certificate issued
 * and signed by the next and valid at `at` (node's X509Certificate: checkIssued, verify, ca); the
 * leaf and intermediate declaring Apple's marker extensions (read from their structure); and
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
    // The issuer's name and key both match (checkIssued), and the signature holds (verify).
    if (!certificate.checkIssued(issuer) || !certificate.verify(issuer.publicKey)) throw new JwsError('the certificate chain is broken')
  }
  // Only certificate authorities issue: the intermediate and root are CAs, the leaf is not.
  if (leaf.ca || !intermediate.ca || !root.ca) throw new JwsError('the chain’s certificate authorities are not where they should be')
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

/**
 * The extensions a certificate declares, read from its structure (RFC 5280 §4.1: the
 * TBSCertificate's [3] extensions, each a SEQUENCE whose first element is its OID). node's
 * X509Certificate parses and verifies the certificate but does not list arbitrary extensions, so
 * this walks the DER node has already accepted; an OID's bytes elsewhere (a name, another
 * extension's value) do not count.
 */
export function extensionOids(certificate: X509Certificate): string[] {
  const der = certificate.raw
  const cert = tlv(der, 0)
  const tbs = tlv(der, cert.start)
  const oids: string[] = []
  for (let at = tbs.start; at < tbs.end; ) {
    const field = tlv(der, at)
    at = field.end
    if (field.tag !== 0xa3) continue
    const list = tlv(der, field.start)
    for (let next = list.start; next < list.end; ) {
      const extension = tlv(der, next)
      next = extension.end
      const id = tlv(der, extension.start)
      if (id.tag !== 0x06) throw new JwsError('a certificate extension has no identifier')
      oids.push(oidText(der.subarray(id.start, id.end)))
    }
  }
  return oids
}

function hasExtension(certificate: X509Certificate, oid: string): boolean {
  return extensionOids(certificate).includes(oid)
}

/** One DER element at `at`: its tag and where its contents start and end. */
function tlv(der: Buffer, at: number): { tag: number; start: number; end: number } {
  const tag = der[at]
  let length = der[at + 1]
  if (tag === undefined || length === undefined) throw new JwsError('a certificate is cut short')
  let start = at + 2
  if (length & 0x80) {
    const count = length & 0x7f
    if (count === 0 || count > 4) throw new JwsError('a certificate has an unreadable length')
    length = 0
    for (let i = 0; i < count; i++) length = length * 256 + (der[start + i] ?? 0)
    start += count
  }
  const end = start + length
  if (end > der.length) throw new JwsError('a certificate is cut short')
  return { tag, start, end }
}

function oidText(bytes: Buffer): string {
  const arcs: number[] = []
  let value = 0
  for (const byte of bytes) {
    value = value * 128 + (byte & 0x7f)
    if (byte & 0x80) continue
    if (arcs.length === 0) arcs.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80)
    else arcs.push(value)
    value = 0
  }
  return arcs.join('.')
}

import { createHash, createPrivateKey, X509Certificate } from 'node:crypto'
import { expect, test } from 'vitest'
import { extensionOids, JwsError, signJwt, verifyAppleJws } from '#server/domain/store/jws'
import { TEST_APPLE_INTERMEDIATE_PEM, TEST_APPLE_LEAF_KEY, TEST_APPLE_LEAF_PEM, TEST_APPLE_ROOT_PEM } from '#tests/helpers/store-keys'

/**
 * Issue 36 §6: Apple's certificate chain is read as certificates (node's X509Certificate and the
 * extensions' structure), not by searching bytes. The decoy chain below (made once with openssl,
 * throw-away keys) is well formed and properly signed, but its leaf carries the StoreKit marker's
 * OID bytes only inside the value of another extension (1.2.3.4), not as an extension of its own.
 */

export const DECOY_ROOT_PEM = `-----BEGIN CERTIFICATE-----
MIIBvDCCAWKgAwIBAgIBATAKBggqhkjOPQQDAjA0MRYwFAYDVQQDDA1EZWNveSBS
b290IENBMRowGAYDVQQKDBFTaXRlIFBvcnRhbCB0ZXN0czAgFw0yNjExMjgxODQy
MzRaGA8yMTI2MTEwNDE4NDIzNFowNDEWMBQGA1UEAwwNRGVjb3kgUm9vdCBDQTEa
MBgGA1UECgwRU2l0ZSBQb3J0YWwgdGVzdHMwWTATBgcqhkjOPQIBBggqhkjOPQMB
BwNCAARci3nton3bpH+ouMFHkRwNMLjAaCIOqXz2Ett/PoX8bL1bvcZjomM89nic
ejh0pNRDs/q/qvh4lP+nSru3wUmyo2MwYTAdBgNVHQ4EFgQUOrS520FYatVW50G2
ZRp2Ri52IoUwHwYDVR0jBBgwFoAUOrS520FYatVW50G2ZRp2Ri52IoUwDwYDVR0T
AQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAQYwCgYIKoZIzj0EAwIDSAAwRQIgc7fn
1llZwXSgJ0z8TVOMZLt2xAN5YGeLW4ddDbMgDVoCIQC1x15sd1yXknwGl4KZU+sv
8EOl1bIDcKiC8FaQSbagFg==
-----END CERTIFICATE-----`

export const DECOY_INTERMEDIATE_PEM = `-----BEGIN CERTIFICATE-----
MIIB0TCCAXegAwIBAgIBAjAKBggqhkjOPQQDAjA0MRYwFAYDVQQDDA1EZWNveSBS
b290IENBMRowGAYDVQQKDBFTaXRlIFBvcnRhbCB0ZXN0czAgFw0yNjExMjgxODQy
MzVaGA8yMTI1MDYyMjE4NDIzNVowNDEWMBQGA1UEAwwNRGVjb3kgV1dEUiBDQTEa
MBgGA1UECgwRU2l0ZSBQb3J0YWwgdGVzdHMwWTATBgcqhkjOPQIBBggqhkjOPQMB
BwNCAATyDIH86Y96og1KhwvQhaGOTm5aN0jjujaJMZsOQced5IlGKArTNkkalzMD
pvVT0ZYEUDP0a0IVfP3DmRX1S0lxo3gwdjASBgNVHRMBAf8ECDAGAQH/AgEAMA4G
A1UdDwEB/wQEAwIBBjAQBgoqhkiG92NkBgIBBAIFADAdBgNVHQ4EFgQUQ74AzFnR
EtM8E6cvm/oLRe2SlI4wHwYDVR0jBBgwFoAUOrS520FYatVW50G2ZRp2Ri52IoUw
CgYIKoZIzj0EAwIDSAAwRQIhANeE6W2y3/vuOyGTg3eO59oVfo5k9RdThXcBiueP
WosCAiBQ6WRojAlATERBd6FfWOz3pxZiNu9J6Jqzha7DIE8Lxg==
-----END CERTIFICATE-----`

export const DECOY_LEAF_PEM = `-----BEGIN CERTIFICATE-----
MIIB0zCCAXmgAwIBAgIBAzAKBggqhkjOPQQDAjA0MRYwFAYDVQQDDA1EZWNveSBX
V0RSIENBMRowGAYDVQQKDBFTaXRlIFBvcnRhbCB0ZXN0czAgFw0yNjExMjgxODQy
MzZaGA8yMTIyMDkyNjE4NDIzNlowOTEbMBkGA1UEAwwSRGVjb3kgc2lnbmluZyBs
ZWFmMRowGAYDVQQKDBFTaXRlIFBvcnRhbCB0ZXN0czBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABPzdmXYaGzpdZmnRK06OzFC9q7KNhzl9Wj59nmlijGXwqx6sdx5W
99Z+d9Bc7BSotw2R82EfVXOjMT2XpQabbcijdTBzMAwGA1UdEwEB/wQCMAAwDgYD
VR0PAQH/BAQDAgeAMBMGAyoDBAQMBgoqhkiG92NkBgsBMB0GA1UdDgQWBBRtlXxN
YcBuvSTKPMso7yqfxCYnmzAfBgNVHSMEGDAWgBRDvgDMWdES0zwTpy+b+gtF7ZKU
jjAKBggqhkjOPQQDAgNIADBFAiEA6ASN8iZI47FI7whnMPZdQIK2CBalqm+iCHY5
aFQOPFcCIDs/IlCuTzltq9cIE8IuZ116i9wxVy2SyCEmKPNDTQcL
-----END CERTIFICATE-----`

export const DECOY_LEAF_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgoyf3MQfrkz+c+pGa
jO9/RzLB/2KlOrxxwoMp5qu6fcqhRANCAAT83Zl2Ghs6XWZp0StOjsxQvauyjYc5
fVo+fZ5pYoxl8KserHceVvfWfnfQXOwUqLcNkfNhH1VzozE9l6UGm23I
-----END PRIVATE KEY-----`

const AT = new Date('2027-06-01T00:00:00Z')
const STOREKIT_LEAF = '1.2.840.113635.100.6.11.1'
const WWDR_INTERMEDIATE = '1.2.840.113635.100.6.2.1'

const der = (pem: string) => new X509Certificate(pem).raw.toString('base64')
const fingerprint = (pem: string) => createHash('sha256').update(new X509Certificate(pem).raw).digest('hex')

function signedWith(chain: [string, string, string], key: string): string {
  return signJwt({ alg: 'ES256', x5c: chain.map(der) }, { transactionId: '2000000123456789' }, createPrivateKey(key))
}

test('the extensions are read from the certificate’s structure', () => {
  expect(extensionOids(new X509Certificate(TEST_APPLE_LEAF_PEM))).toContain(STOREKIT_LEAF)
  expect(extensionOids(new X509Certificate(TEST_APPLE_INTERMEDIATE_PEM))).toContain(WWDR_INTERMEDIATE)
  const decoy = extensionOids(new X509Certificate(DECOY_LEAF_PEM))
  expect(decoy).toContain('1.2.3.4')
  expect(decoy).not.toContain(STOREKIT_LEAF)
  // The marker's bytes are there all the same: a byte search would have found them.
  expect(new X509Certificate(DECOY_LEAF_PEM).raw.includes(Buffer.from('060a2a864886f76364060b01', 'hex'))).toBe(true)
})

test('a chain whose leaf only carries the marker’s bytes, not the marker, is refused', () => {
  const jws = signedWith([DECOY_LEAF_PEM, DECOY_INTERMEDIATE_PEM, DECOY_ROOT_PEM], DECOY_LEAF_KEY)
  expect(() => verifyAppleJws(jws, [fingerprint(DECOY_ROOT_PEM)], AT)).toThrow(JwsError)
  expect(() => verifyAppleJws(jws, [fingerprint(DECOY_ROOT_PEM)], AT)).toThrow('markers')
})

test('the Apple-shaped test chain passes; out of order, or under an untrusted root, it does not', () => {
  const jws = signedWith([TEST_APPLE_LEAF_PEM, TEST_APPLE_INTERMEDIATE_PEM, TEST_APPLE_ROOT_PEM], TEST_APPLE_LEAF_KEY)
  expect(verifyAppleJws(jws, [fingerprint(TEST_APPLE_ROOT_PEM)], AT)).toEqual({ transactionId: '2000000123456789' })
  expect(() => verifyAppleJws(jws, [fingerprint(DECOY_ROOT_PEM)], AT)).toThrow('trusted Apple root')
  const swapped = signedWith([TEST_APPLE_INTERMEDIATE_PEM, TEST_APPLE_LEAF_PEM, TEST_APPLE_ROOT_PEM], TEST_APPLE_LEAF_KEY)
  expect(() => verifyAppleJws(swapped, [fingerprint(TEST_APPLE_ROOT_PEM)], AT)).toThrow(JwsError)
})

import { createHash, X509Certificate } from 'node:crypto'
import { expect, test } from 'vitest'
import { verifySignature } from '#server/domain/billing/signature'
import { JwsError, verifyAppleJws } from '#server/domain/store/jws'
import { APPLE_ROOT_CA_G3_SHA256 } from '#server/domain/store/store-config'

/**
 * Issue 36 §6: the signatures our own code checks, tested against known answers from their
 * publishers, not only against what our own signing helper makes. Only the vectors' data is
 * copied here, each with where it comes from.
 *
 * Google: nothing of Google's is verified by our code. A Play purchase's state is read from the
 * Play Developer API over TLS with the service account's token (server/domain/store/google.ts), so
 * there is no Google signature for a vector to exercise.
 */

// ---- Stripe: the webhook signature (t=…,v1=HMAC-SHA256 of "<t>.<body>") ----

/**
 * Stripe's own fixed vector, from the repository stripe/stripe-dotnet:
 * src/StripeTests/Services/Events/EventUtilityTest.cs (secret, timestamp and header) and
 * src/StripeTests/Resources/event_test_signature.json (the body, with LF line ends and its final
 * newline, as that test reads it).
 */
const STRIPE_SECRET = 'webhook_secret'
const STRIPE_TIMESTAMP = 1533204620
const STRIPE_HEADER = 't=1533204620,v1=2220f87ef101a04665f11cdf770523143f875572008577fa0f20882ddb9cc3c7,v0=63f3a72374a733066c4be69ed7f8e5ac85c22c9f0a6a612ab9a025a9e4ee7eef'
const STRIPE_BODY = `{
  "id": "evt_123",
  "object": "event",
  "account": "acct_123",
  "api_version": "2017-05-25",
  "created": 1533204620,
  "data": {
    "object": {
      "id": "cus_123",
      "object": "customer",
      "created": 123456789,
      "email": "test@stripe.com",
      "livemode": false,
      "metadata": {}
    }
  },
  "livemode": false,
  "pending_webhooks": 1,
  "request": {
    "id": "req_123",
    "idempotency_key": "idempotency-key-123"
  },
  "type": "customer.created"
}
`
/** Within Stripe's five minutes of the signature, as the publisher's test checks it. */
const STRIPE_NOW = new Date((STRIPE_TIMESTAMP + 100) * 1000)

/** The text with its byte at `index` changed to another printable character. */
function oneByteOff(text: string, index: number): string {
  const bytes = Buffer.from(text, 'utf8')
  bytes[index] = bytes[index] === 0x41 ? 0x42 : 0x41
  return bytes.toString('utf8')
}

test('Stripe’s published webhook vector is accepted', () => {
  expect(verifySignature(STRIPE_SECRET, STRIPE_BODY, STRIPE_HEADER, STRIPE_NOW)).toEqual({ ok: true })
})

test('Stripe’s vector altered by one byte is refused: the body, the signature, the timestamp, the secret', () => {
  const refused = { ok: false, reason: 'signature' }
  // A byte inside the customer's e-mail address.
  expect(verifySignature(STRIPE_SECRET, oneByteOff(STRIPE_BODY, STRIPE_BODY.indexOf('test@stripe.com')), STRIPE_HEADER, STRIPE_NOW)).toMatchObject(refused)
  // The body without its final newline is another body.
  expect(verifySignature(STRIPE_SECRET, STRIPE_BODY.trimEnd(), STRIPE_HEADER, STRIPE_NOW)).toMatchObject(refused)
  // One hex digit of v1 (the v0 that Stripe sends beside it is not a signature we take).
  expect(verifySignature(STRIPE_SECRET, STRIPE_BODY, STRIPE_HEADER.replace('v1=2220', 'v1=2221'), STRIPE_NOW)).toMatchObject(refused)
  expect(verifySignature(STRIPE_SECRET, STRIPE_BODY, STRIPE_HEADER.replace('t=1533204620', 't=1533204621'), STRIPE_NOW)).toMatchObject(refused)
  expect(verifySignature('webhook_secreu', STRIPE_BODY, STRIPE_HEADER, STRIPE_NOW)).toMatchObject(refused)
})

test('Stripe’s vector long after its timestamp is refused as a replay', () => {
  const later = new Date((STRIPE_TIMESTAMP + 5 * 60 + 1) * 1000)
  expect(verifySignature(STRIPE_SECRET, STRIPE_BODY, STRIPE_HEADER, later)).toMatchObject({ ok: false, reason: 'timestamp' })
})

// ---- Apple: signed data (JWS, ES256, x5c chain to a trusted root) ----

/**
 * Apple's signed renewal info, from the repository apple/app-store-server-library-node:
 * tests/resources/mock_signed_data/renewalInfo, signed by the leaf of Apple's test chain, whose
 * root is that repository's tests/resources/certs/testCA.der (below, base64). Apple's own test
 * verifies it with that root in place of Apple Root CA - G3; so does this one, through the trusted
 * roots our verifier takes (production passes only APPLE_ROOT_CA_FINGERPRINTS, by default G3's).
 *
 * The same repository's transactionInfo and testNotification are not used: their x5c ends in an
 * older copy of the test root that does not declare itself a certificate authority. Apple's
 * library ignores the chain's last certificate and uses its trusted root instead; ours requires
 * the chain's last certificate to be a CA and a trusted one, and refuses them.
 */
const APPLE_RENEWAL_INFO =
  'eyJ4NWMiOlsiTUlJQm9EQ0NBVWFnQXdJQkFnSUJEREFLQmdncWhrak9QUVFEQXpCRk1Rc3dDUVlEVlFRR0V3SlZVekVMTUFrR0ExVUVDQXdDUTBFeEVqQVFCZ05WQkFjTUNVTjFjR1Z5ZEdsdWJ6RVZNQk1HQTFVRUNnd01TVzUwWlhKdFpXUnBZWFJsTUI0WERUSXpNREV3TlRJeE16RXpORm9YRFRNek1ERXdNVEl4TXpFek5Gb3dQVEVMTUFrR0ExVUVCaE1DVlZNeEN6QUpCZ05WQkFnTUFrTkJNUkl3RUFZRFZRUUhEQWxEZFhCbGNuUnBibTh4RFRBTEJnTlZCQW9NQkV4bFlXWXdXVEFUQmdjcWhrak9QUUlCQmdncWhrak9QUU1CQndOQ0FBVGl0WUhFYVlWdWM4ZzlBalRPd0VyTXZHeVB5a1BhK3B1dlRJOGhKVEhaWkRMR2FzMnFYMStFcnhnUVRKZ1ZYdjc2bm1MaGhSSkgrajI1QWlBSThpR3NveTh3TFRBSkJnTlZIUk1FQWpBQU1BNEdBMVVkRHdFQi93UUVBd0lIZ0RBUUJnb3Foa2lHOTJOa0Jnc0JCQUlGQURBS0JnZ3Foa2pPUFFRREF3TklBREJGQWlCWDRjK1QwRnA1bko1UVJDbFJmdTVQU0J5UnZOUHR1YVRzazB2UEIzV0FJQUloQU5nYWF1QWovWVA5czBBa0VoeUpoeFFPLzZRMnpvdVorSDFDSU9laG5NelEiLCJNSUlCbnpDQ0FVV2dBd0lCQWdJQkN6QUtCZ2dxaGtqT1BRUURBekEyTVFzd0NRWURWUVFHRXdKVlV6RVRNQkVHQTFVRUNBd0tRMkZzYVdadmNtNXBZVEVTTUJBR0ExVUVCd3dKUTNWd1pYSjBhVzV2TUI0WERUSXpNREV3TlRJeE16RXdOVm9YRFRNek1ERXdNVEl4TXpFd05Wb3dSVEVMTUFrR0ExVUVCaE1DVlZNeEN6QUpCZ05WQkFnTUFrTkJNUkl3RUFZRFZRUUhEQWxEZFhCbGNuUnBibTh4RlRBVEJnTlZCQW9NREVsdWRHVnliV1ZrYVdGMFpUQlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJCVU41VjlyS2pmUmlNQUlvakVBMEF2NU1wMG9GK08wY0w0Z3pyVEYxNzhpblVIdWdqN0V0NDZOcmtRN2hLZ01WbmpvZ3E0NVExck1zK2NNSFZOSUxXcWpOVEF6TUE4R0ExVWRFd1FJTUFZQkFmOENBUUF3RGdZRFZSMFBBUUgvQkFRREFnRUdNQkFHQ2lxR1NJYjNZMlFHQWdFRUFnVUFNQW9HQ0NxR1NNNDlCQU1EQTBnQU1FVUNJUUNtc0lLWXM0MXVsbHNzSFg0clZ2ZVVUMFo3SXM1L2hMSzFsRlBUdHVuM2hBSWdjMisyUkc1K2dOY0ZWY3MrWEplRWw0R1orb2psM1JPT21sbCt5ZTdkeW5RPSIsIk1JSUJnakNDQVNtZ0F3SUJBZ0lKQUxVYzVBTGlINXBiTUFvR0NDcUdTTTQ5QkFNRE1EWXhDekFKQmdOVkJBWVRBbFZUTVJNd0VRWURWUVFJREFwRFlXeHBabTl5Ym1saE1SSXdFQVlEVlFRSERBbERkWEJsY25ScGJtOHdIaGNOTWpNd01UQTFNakV6TURJeVdoY05Nek13TVRBeU1qRXpNREl5V2pBMk1Rc3dDUVlEVlFRR0V3SlZVekVUTUJFR0ExVUVDQXdLUTJGc2FXWnZjbTVwWVRFU01CQUdBMVVFQnd3SlEzVndaWEowYVc1dk1Ga3dFd1lIS29aSXpqMENBUVlJS29aSXpqMERBUWNEUWdBRWMrL0JsK2dvc3BvNnRmOVo3aW81dGRLZHJsTjFZZFZucUVoRURYRFNoemRBSlBRaWphbVhJTUhmOHhXV1RhMXpnb1lUeE9LcGJ1SnREcGx6MVhyaVRhTWdNQjR3REFZRFZSMFRCQVV3QXdFQi96QU9CZ05WSFE4QkFmOEVCQU1DQVFZd0NnWUlLb1pJemowRUF3TURSd0F3UkFJZ2VtV1FYbk1BZFRhZDJKREpXbmc5VTR1QkJMNW1BN1dJMDVIN29IN2M2aVFDSUhpUnFNak5melVBeWl1OWg2ck9VL0sraVRSMEkvM1kvTlNXc1hIWCthY2MiXSwidHlwIjoiSldUIiwiYWxnIjoiRVMyNTYifQ.eyJlbnZpcm9ubWVudCI6IlNhbmRib3giLCJzaWduZWREYXRlIjoxNjcyOTU2MTU0MDAwfQ.FbK2OL-t6l4892W7fzWyus_g9mIl2CzWLbVt7Kgcnt6zzVulF8bzovgpe0v_y490blROGixy8KDoe2dSU53-Xw'
const APPLE_TEST_ROOT_DER_BASE64 = 'MIIBgjCCASmgAwIBAgIJALUc5ALiH5pbMAoGCCqGSM49BAMDMDYxCzAJBgNVBAYTAlVTMRMwEQYDVQQIDApDYWxpZm9ybmlhMRIwEAYDVQQHDAlDdXBlcnRpbm8wHhcNMjMwMTA1MjEzMDIyWhcNMzMwMTAyMjEzMDIyWjA2MQswCQYDVQQGEwJVUzETMBEGA1UECAwKQ2FsaWZvcm5pYTESMBAGA1UEBwwJQ3VwZXJ0aW5vMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEc+/Bl+gospo6tf9Z7io5tdKdrlN1YdVnqEhEDXDShzdAJPQijamXIMHf8xWWTa1zgoYTxOKpbuJtDplz1XriTaMgMB4wDAYDVR0TBAUwAwEB/zAOBgNVHQ8BAf8EBAMCAQYwCgYIKoZIzj0EAwMDRwAwRAIgemWQXnMAdTad2JDJWng9U4uBBL5mA7WI05H7oH7c6iQCIHiRqMjNfzUAyiu9h6rOU/K+iTR0I/3Y/NSWsXHX+acc'
/**
 * Apple Root CA - G3 as Apple's library embeds it for its tests (the same repository,
 * tests/unit-tests/jws_verification.test.ts, REAL_APPLE_ROOT_BASE64_ENCODED).
 */
const APPLE_ROOT_CA_G3_BASE64 = 'MIICQzCCAcmgAwIBAgIILcX8iNLFS5UwCgYIKoZIzj0EAwMwZzEbMBkGA1UEAwwSQXBwbGUgUm9vdCBDQSAtIEczMSYwJAYDVQQLDB1BcHBsZSBDZXJ0aWZpY2F0aW9uIEF1dGhvcml0eTETMBEGA1UECgwKQXBwbGUgSW5jLjELMAkGA1UEBhMCVVMwHhcNMTQwNDMwMTgxOTA2WhcNMzkwNDMwMTgxOTA2WjBnMRswGQYDVQQDDBJBcHBsZSBSb290IENBIC0gRzMxJjAkBgNVBAsMHUFwcGxlIENlcnRpZmljYXRpb24gQXV0aG9yaXR5MRMwEQYDVQQKDApBcHBsZSBJbmMuMQswCQYDVQQGEwJVUzB2MBAGByqGSM49AgEGBSuBBAAiA2IABJjpLz1AcqTtkyJygRMc3RCV8cWjTnHcFBbZDuWmBSp3ZHtfTjjTuxxEtX/1H7YyYl3J6YRbTzBPEVoA/VhYDKX1DyxNB0cTddqXl5dvMVztK517IDvYuVTZXpmkOlEKMaNCMEAwHQYDVR0OBBYEFLuw3qFYM4iapIqZ3r6966/ayySrMA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQDAgEGMAoGCCqGSM49BAMDA2gAMGUCMQCD6cHEFl4aXTQY2e3v9GwOAEZLuN+yRhHFD/3meoyhpmvOwgPUnPWTxnS4at+qIxUCMG1mihDK1A3UT82NQz60imOlM27jbdoXt2QfyFMm+YhidDkLF1vLUagM6BgD56KyKA=='

const sha256 = (der: Buffer) => createHash('sha256').update(der).digest('hex')
const APPLE_TEST_ROOT = sha256(Buffer.from(APPLE_TEST_ROOT_DER_BASE64, 'base64'))
/** The renewal info's signedDate (2023-01-05), inside every certificate's validity. */
const APPLE_AT = new Date(1672956154000)

test('the root our production trusts by default is Apple Root CA - G3 as Apple publishes it', () => {
  const root = new X509Certificate(Buffer.from(APPLE_ROOT_CA_G3_BASE64, 'base64'))
  expect(root.subject).toContain('CN=Apple Root CA - G3')
  expect(sha256(root.raw)).toBe(APPLE_ROOT_CA_G3_SHA256)
})

test('Apple’s published signed renewal info is accepted with Apple’s test root, and answers its payload', () => {
  expect(verifyAppleJws(APPLE_RENEWAL_INFO, [APPLE_TEST_ROOT], APPLE_AT)).toEqual({ environment: 'Sandbox', signedDate: 1672956154000 })
})

test('Apple’s vector is refused by the production roots: a test chain is not Apple’s', () => {
  expect(() => verifyAppleJws(APPLE_RENEWAL_INFO, [APPLE_ROOT_CA_G3_SHA256], APPLE_AT)).toThrow('the chain does not end at a trusted Apple root')
})

test('Apple’s vector altered by one byte is refused: the payload, the signature, a certificate of the chain', () => {
  const [header = '', payload = '', signature = ''] = APPLE_RENEWAL_INFO.split('.')
  const reencoded = (text: string) => Buffer.from(text, 'utf8').toString('base64url')
  const payloadText = Buffer.from(payload, 'base64url').toString('utf8')
  // "Sandbox" becomes "Sandbpx": valid JSON, another payload.
  const otherPayload = reencoded(oneByteOff(payloadText, payloadText.indexOf('Sandbox') + 5))
  expect(() => verifyAppleJws(`${header}.${otherPayload}.${signature}`, [APPLE_TEST_ROOT], APPLE_AT)).toThrow('the signature does not match')

  const signatureBytes = Buffer.from(signature, 'base64url')
  signatureBytes[10] = (signatureBytes[10] ?? 0) ^ 0x01
  expect(() => verifyAppleJws(`${header}.${payload}.${signatureBytes.toString('base64url')}`, [APPLE_TEST_ROOT], APPLE_AT)).toThrow(JwsError)
  expect(() => verifyAppleJws(`${header}.${payload}.${signatureBytes.toString('base64url')}`, [APPLE_TEST_ROOT], APPLE_AT)).toThrow('the signature does not match')

  // One byte of the leaf certificate's signature: the chain no longer holds.
  const decoded = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { x5c: string[] }
  const leaf = Buffer.from(decoded.x5c[0] ?? '', 'base64')
  leaf[leaf.length - 3] = (leaf[leaf.length - 3] ?? 0) ^ 0x01
  const otherHeader = reencoded(JSON.stringify({ ...decoded, x5c: [leaf.toString('base64'), ...decoded.x5c.slice(1)] }))
  expect(() => verifyAppleJws(`${otherHeader}.${payload}.${signature}`, [APPLE_TEST_ROOT], APPLE_AT)).toThrow(JwsError)
})

test('Apple’s vector is refused after its chain expired', () => {
  expect(() => verifyAppleJws(APPLE_RENEWAL_INFO, [APPLE_TEST_ROOT], new Date('2034-01-01T00:00:00Z'))).toThrow('a certificate of the chain is not valid now')
})

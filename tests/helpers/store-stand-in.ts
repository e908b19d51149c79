import { createHash, createPublicKey, generateKeyPairSync, sign, verify, X509Certificate, type KeyObject } from 'node:crypto'
import { TEST_APPLE_INTERMEDIATE_PEM, TEST_APPLE_LEAF_KEY, TEST_APPLE_LEAF_PEM, TEST_APPLE_ROOT_PEM } from './store-keys'

/**
 * The two app stores as third parties we cannot reach in tests (DESIGN.md "Testing"): the App Store
 * Server API and the Google Play Developer API with Google's OAuth token endpoint, answering the
 * requests and shapes their documentation gives. One fetch handler, so API tests mount it with msw
 * and the e2e test serves it over HTTP. It checks what the real stores check (our signed tokens,
 * their claims) and keeps every request for the tests to look at.
 */

export const APPLE_SANDBOX = 'https://api.storekit-sandbox.itunes.apple.com'
export const GOOGLE_API = 'https://androidpublisher.googleapis.com'
export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token'
export const TEST_BUNDLE_ID = 'com.example.siteportal'
export const TEST_PACKAGE_NAME = 'com.example.siteportal'
export const TEST_PRODUCTS = {
  'siteportal.team.10': { plan: 'team', seats: 10 },
  'siteportal.business.25': { plan: 'business', seats: 25 },
} as const

/** Apple's Get All Subscription Statuses `status`: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked. */
export type AppleSubscription = {
  originalTransactionId: string
  /** The purchase the app reports; renewals add later transaction ids. */
  transactionIds: string[]
  productId: string
  expiresDate: number
  status: 1 | 2 | 3 | 4 | 5
  autoRenewStatus?: 0 | 1
  revocationDate?: number
  bundleId?: string
  environment?: 'Sandbox' | 'Production'
  type?: string
}

export type GoogleSubscription = {
  subscriptionState: string
  productId: string
  expiryTime: string
  autoRenewEnabled?: boolean
  latestOrderId?: string
}

/** ok; down: the store answers 503; timeout: it never answers; network: the connection fails; garbage: 200 with HTML. */
export type StoreMode = 'ok' | 'down' | 'timeout' | 'network' | 'garbage'

export type SeenRequest = { method: string; url: string; authorization: string | null; contentType: string | null; body: string }

export type StoreStandIn = {
  /** The environment a portal needs to use this stand-in; `baseUrls` when it is served over HTTP. */
  env(baseUrls?: { apple: string; google: string; token: string }): Record<string, string>
  apple: Map<string, AppleSubscription>
  google: Map<string, GoogleSubscription>
  mode: { apple: StoreMode; google: StoreMode }
  seen: SeenRequest[]
  handle(request: Request): Promise<Response>
  reset(): void
}

function keyPem(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString()
}

function derOf(pem: string): string {
  return new X509Certificate(pem).raw.toString('base64')
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url')
}

/** Apple's signed data: ES256 by the leaf, with the chain in x5c (leaf, intermediate, root). */
export function appleJws(payload: Record<string, unknown>): string {
  const input = `${b64({ alg: 'ES256', x5c: [derOf(TEST_APPLE_LEAF_PEM), derOf(TEST_APPLE_INTERMEDIATE_PEM), derOf(TEST_APPLE_ROOT_PEM)] })}.${b64(payload)}`
  return `${input}.${sign('sha256', Buffer.from(input), { key: TEST_APPLE_LEAF_KEY, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`
}

/** The claims of a compact JWT if its signature checks with `key`; undefined otherwise. */
function checkedJwt(token: string, key: KeyObject, alg: 'ES256' | 'RS256'): { header: Record<string, unknown>; claims: Record<string, unknown> } | undefined {
  const [header = '', claims = '', signature = ''] = token.split('.')
  try {
    const parsedHeader = JSON.parse(Buffer.from(header, 'base64url').toString()) as Record<string, unknown>
    if (parsedHeader.alg !== alg) return undefined
    const input = Buffer.from(`${header}.${claims}`)
    const ok = alg === 'ES256' ? verify('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url')) : verify('sha256', input, key, Buffer.from(signature, 'base64url'))
    return ok ? { header: parsedHeader, claims: JSON.parse(Buffer.from(claims, 'base64url').toString()) as Record<string, unknown> } : undefined
  } catch {
    return undefined
  }
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })

export function createStoreStandIn(): StoreStandIn {
  const appleKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const googleKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const appleIssuer = '57246542-96fe-1a63-e053-0824d011072a'
  const appleKeyId = '2X9R4HXF34'
  const googleEmail = 'portal-billing@site-portal-tests.iam.gserviceaccount.com'
  const issuedTokens = new Set<string>()
  let tokenUri = GOOGLE_TOKEN_URI

  const self: StoreStandIn = {
    apple: new Map(),
    google: new Map(),
    mode: { apple: 'ok', google: 'ok' },
    seen: [],
    env(baseUrls) {
      if (baseUrls) tokenUri = baseUrls.token
      return {
        APPLE_ISSUER_ID: appleIssuer,
        APPLE_KEY_ID: appleKeyId,
        APPLE_PRIVATE_KEY: keyPem(appleKey.privateKey).replaceAll('\n', '\\n'),
        APPLE_BUNDLE_ID: TEST_BUNDLE_ID,
        APPLE_ENVIRONMENT: 'Sandbox',
        APPLE_ROOT_CA_FINGERPRINTS: createHash('sha256').update(new X509Certificate(TEST_APPLE_ROOT_PEM).raw).digest('hex'),
        GOOGLE_SERVICE_ACCOUNT_JSON: JSON.stringify({
          type: 'service_account',
          project_id: 'site-portal-tests',
          private_key_id: 'b3f1c0ffee',
          private_key: keyPem(googleKey.privateKey),
          client_email: googleEmail,
          token_uri: tokenUri,
        }),
        GOOGLE_PACKAGE_NAME: TEST_PACKAGE_NAME,
        IAP_PRODUCTS: JSON.stringify(TEST_PRODUCTS),
        STORE_TIMEOUT_MS: '300',
        ...(baseUrls && { APPLE_API_BASE_URL: baseUrls.apple, GOOGLE_API_BASE_URL: baseUrls.google }),
      }
    },
    reset() {
      self.apple.clear()
      self.google.clear()
      self.mode.apple = 'ok'
      self.mode.google = 'ok'
      self.seen.length = 0
    },
    async handle(request) {
      const url = new URL(request.url)
      const body = request.method === 'GET' ? '' : await request.text()
      self.seen.push({ method: request.method, url: `${url.origin}${url.pathname}`, authorization: request.headers.get('authorization'), contentType: request.headers.get('content-type'), body })
      const store = url.pathname.startsWith('/inApps/') ? 'apple' : 'google'
      const mode = self.mode[store]
      if (mode === 'network') return Response.error()
      if (mode === 'timeout') return new Promise<Response>(() => undefined)
      if (mode === 'down') return json(503, store === 'apple' ? { errorCode: 5000001, errorMessage: 'An unknown retryable error occurred.' } : { error: { code: 503, message: 'The service is currently unavailable.', status: 'UNAVAILABLE' } })
      if (mode === 'garbage') return new Response('<html>Service Unavailable</html>', { status: 200, headers: { 'content-type': 'text/html' } })
      if (url.pathname.startsWith('/inApps/')) return appleAnswer(url, request)
      if (url.pathname.endsWith('/token') && request.method === 'POST') return tokenAnswer(body)
      return googleAnswer(url, request)
    },
  }

  function appleAuthorised(request: Request): boolean {
    const token = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1]
    const jwt = token ? checkedJwt(token, createPublicKey(appleKey.privateKey), 'ES256') : undefined
    return jwt?.header.kid === appleKeyId && jwt.claims.iss === appleIssuer && jwt.claims.aud === 'appstoreconnect-v1' && jwt.claims.bid === TEST_BUNDLE_ID && typeof jwt.claims.exp === 'number'
  }

  function subscriptionOf(transactionId: string): AppleSubscription | undefined {
    return [...self.apple.values()].find((s) => s.originalTransactionId === transactionId || s.transactionIds.includes(transactionId))
  }

  function transactionPayload(s: AppleSubscription, transactionId: string) {
    return {
      transactionId,
      originalTransactionId: s.originalTransactionId,
      bundleId: s.bundleId ?? TEST_BUNDLE_ID,
      productId: s.productId,
      subscriptionGroupIdentifier: '21345678',
      purchaseDate: s.expiresDate - 30 * 86_400_000,
      originalPurchaseDate: s.expiresDate - 30 * 86_400_000,
      expiresDate: s.expiresDate,
      quantity: 1,
      type: s.type ?? 'Auto-Renewable Subscription',
      inAppOwnershipType: 'PURCHASED',
      signedDate: s.expiresDate - 30 * 86_400_000,
      environment: s.environment ?? 'Sandbox',
      transactionReason: 'PURCHASE',
      storefront: 'GBR',
      ...(s.revocationDate !== undefined && { revocationDate: s.revocationDate, revocationReason: 0 }),
    }
  }

  function appleAnswer(url: URL, request: Request): Response {
    if (!appleAuthorised(request)) return new Response(null, { status: 401 })
    const match = /^\/inApps\/v1\/(transactions|subscriptions)\/([^/]+)$/.exec(url.pathname)
    if (!match?.[1] || !match[2]) return json(404, { errorCode: 4040000, errorMessage: 'Not found.' })
    const s = subscriptionOf(decodeURIComponent(match[2]))
    if (!s) return json(404, { errorCode: 4040010, errorMessage: 'Transaction id not found.' })
    if (match[1] === 'transactions') return json(200, { signedTransactionInfo: appleJws(transactionPayload(s, decodeURIComponent(match[2]))) })
    const latest = s.transactionIds[s.transactionIds.length - 1] ?? s.originalTransactionId
    return json(200, {
      environment: s.environment ?? 'Sandbox',
      bundleId: s.bundleId ?? TEST_BUNDLE_ID,
      appAppleId: 1234567890,
      data: [
        {
          subscriptionGroupIdentifier: '21345678',
          lastTransactions: [
            {
              originalTransactionId: s.originalTransactionId,
              status: s.status,
              signedTransactionInfo: appleJws(transactionPayload(s, latest)),
              signedRenewalInfo: appleJws({ originalTransactionId: s.originalTransactionId, autoRenewProductId: s.productId, productId: s.productId, autoRenewStatus: s.autoRenewStatus ?? 1, signedDate: s.expiresDate, environment: s.environment ?? 'Sandbox' }),
            },
          ],
        },
      ],
    })
  }

  function tokenAnswer(body: string): Response {
    const form = new URLSearchParams(body)
    const jwt = checkedJwt(form.get('assertion') ?? '', createPublicKey(googleKey.privateKey), 'RS256')
    const valid =
      form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer' &&
      jwt?.claims.iss === googleEmail &&
      jwt.claims.scope === 'https://www.googleapis.com/auth/androidpublisher' &&
      jwt.claims.aud === tokenUri
    if (!valid) return json(400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' })
    const token = `ya29.test-${issuedTokens.size + 1}`
    issuedTokens.add(token)
    return json(200, { access_token: token, expires_in: 3599, token_type: 'Bearer' })
  }

  function googleAnswer(url: URL, request: Request): Response {
    const token = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1]
    if (!token || !issuedTokens.has(token)) return json(401, { error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } })
    const match = /^\/androidpublisher\/v3\/applications\/([^/]+)\/purchases\/subscriptionsv2\/tokens\/([^/]+)$/.exec(url.pathname)
    const s = match?.[2] ? self.google.get(decodeURIComponent(match[2])) : undefined
    if (!match || decodeURIComponent(match[1] ?? '') !== TEST_PACKAGE_NAME || !s) {
      return json(404, { error: { code: 404, message: 'The purchase token was not found.', status: 'NOT_FOUND' } })
    }
    return json(200, {
      kind: 'androidpublisher#subscriptionPurchaseV2',
      regionCode: 'GB',
      startTime: '2026-11-01T09:00:00.000Z',
      subscriptionState: s.subscriptionState,
      latestOrderId: s.latestOrderId ?? 'GPA.3312-5021-7854-12345',
      acknowledgementState: 'ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED',
      testPurchase: {},
      lineItems: [{ productId: s.productId, expiryTime: s.expiryTime, autoRenewingPlan: { autoRenewEnabled: s.autoRenewEnabled ?? true }, offerDetails: { basePlanId: 'monthly' } }],
    })
  }

  return self
}

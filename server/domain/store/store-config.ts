import { createPrivateKey, type KeyObject } from 'node:crypto'
import { z } from 'zod'
import { PLAN_KEYS, type PlanKey } from '~/lib/licensing/plans'

/**
 * The app stores' part of the environment (docs/store-subscriptions.md "Configuration"), read once
 * by server/config.ts. A store is configured when all of its variables are set; some but not all
 * of them stop start-up with the missing names, so a typo never silently turns a store off.
 */

export const APPLE_BASE_URLS = {
  Production: 'https://api.storekit.itunes.apple.com',
  Sandbox: 'https://api.storekit-sandbox.itunes.apple.com',
} as const
export const GOOGLE_BASE_URL = 'https://androidpublisher.googleapis.com'
/**
 * SHA-256 of "Apple Root CA - G3", the root every App Store signed transaction chains to
 * (https://www.apple.com/certificateauthority/). APPLE_ROOT_CA_FINGERPRINTS replaces it (tests).
 */
export const APPLE_ROOT_CA_G3_SHA256 = '63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179'

export const storeEnvShape = {
  APPLE_ISSUER_ID: z.string().min(1).optional(),
  APPLE_KEY_ID: z.string().min(1).optional(),
  APPLE_PRIVATE_KEY: z.string().min(1).optional(),
  APPLE_BUNDLE_ID: z.string().min(1).optional(),
  APPLE_ENVIRONMENT: z.enum(['Production', 'Sandbox'], { error: 'must be Production or Sandbox' }).default('Production'),
  APPLE_API_BASE_URL: z.url({ error: 'must be an absolute http(s) URL' }).optional(),
  APPLE_ROOT_CA_FINGERPRINTS: z.string().regex(/^[0-9a-fA-F:]{64,95}(,[0-9a-fA-F:]{64,95})*$/, 'must be SHA-256 fingerprints in hex, separated by commas').optional(),
  GOOGLE_SERVICE_ACCOUNT_JSON: z.string().min(1).optional(),
  GOOGLE_PACKAGE_NAME: z.string().regex(/^[A-Za-z][\w]*(\.[A-Za-z][\w]*)+$/, 'must be an Android package name, e.g. com.example.portal').optional(),
  GOOGLE_API_BASE_URL: z.url({ error: 'must be an absolute http(s) URL' }).optional(),
  IAP_PRODUCTS: z.string().optional(),
  STORE_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(10_000),
}

type StoreEnv = z.output<z.ZodObject<typeof storeEnvShape>>

export type AppleConfig = {
  issuerId: string
  keyId: string
  privateKey: KeyObject
  bundleId: string
  environment: 'Production' | 'Sandbox'
  baseUrl: string
  rootFingerprints: string[]
}

export type GoogleServiceAccount = { clientEmail: string; privateKey: KeyObject; privateKeyId: string | undefined; tokenUri: string }

export type GoogleConfig = { serviceAccount: GoogleServiceAccount; packageName: string; baseUrl: string }

export type StoreProduct = { plan: PlanKey; seats: number }

export type StoreConfig = {
  apple: AppleConfig | undefined
  google: GoogleConfig | undefined
  /** Store product id → the plan and seats it buys (IAP_PRODUCTS). */
  products: Record<string, StoreProduct>
  timeoutMs: number
}

const ProductsSchema = z.record(
  z.string().min(1).max(200),
  z.object({ plan: z.enum(PLAN_KEYS), seats: z.number().int().min(1).max(100_000) }, { error: 'each product must be {"plan": "team", "seats": 10}' }),
)

const ServiceAccountSchema = z.object({
  client_email: z.string().min(3),
  private_key: z.string().min(1),
  private_key_id: z.string().optional(),
  token_uri: z.url().default('https://oauth2.googleapis.com/token'),
})

/** The store settings, or the lines of what is wrong with them (as `  NAME: message`). */
export function readStoreConfig(e: StoreEnv): { config: StoreConfig } | { problems: string[] } {
  const problems: string[] = []
  const apple = readApple(e, problems)
  const google = readGoogle(e, problems)
  const products = readProducts(e.IAP_PRODUCTS, problems)
  if ((apple || google) && Object.keys(products).length === 0) problems.push('  IAP_PRODUCTS: is required with a store, e.g. {"com.example.portal.team10":{"plan":"team","seats":10}}')
  if (problems.length > 0) return { problems }
  return { config: { apple, google, products, timeoutMs: e.STORE_TIMEOUT_MS } }
}

function missingOf(names: Record<string, string | undefined>): string[] {
  return Object.entries(names)
    .filter(([, value]) => value === undefined)
    .map(([name]) => name)
}

function readApple(e: StoreEnv, problems: string[]): AppleConfig | undefined {
  const required = { APPLE_ISSUER_ID: e.APPLE_ISSUER_ID, APPLE_KEY_ID: e.APPLE_KEY_ID, APPLE_PRIVATE_KEY: e.APPLE_PRIVATE_KEY, APPLE_BUNDLE_ID: e.APPLE_BUNDLE_ID }
  const missing = missingOf(required)
  if (missing.length === 4) return undefined
  if (missing.length > 0) {
    problems.push(...missing.map((name) => `  ${name}: is required with the other APPLE_* variables (App Store Server API)`))
    return undefined
  }
  const privateKey = parseKey(e.APPLE_PRIVATE_KEY ?? '', 'ec')
  if (!privateKey) {
    problems.push('  APPLE_PRIVATE_KEY: must be the App Store Connect API key (.p8 file contents, PEM; \\n for line breaks is fine)')
    return undefined
  }
  return {
    issuerId: e.APPLE_ISSUER_ID ?? '',
    keyId: e.APPLE_KEY_ID ?? '',
    privateKey,
    bundleId: e.APPLE_BUNDLE_ID ?? '',
    environment: e.APPLE_ENVIRONMENT,
    baseUrl: (e.APPLE_API_BASE_URL ?? APPLE_BASE_URLS[e.APPLE_ENVIRONMENT]).replace(/\/$/, ''),
    rootFingerprints: (e.APPLE_ROOT_CA_FINGERPRINTS ?? APPLE_ROOT_CA_G3_SHA256).split(',').map((f) => f.replaceAll(':', '').toLowerCase()),
  }
}

function readGoogle(e: StoreEnv, problems: string[]): GoogleConfig | undefined {
  const missing = missingOf({ GOOGLE_SERVICE_ACCOUNT_JSON: e.GOOGLE_SERVICE_ACCOUNT_JSON, GOOGLE_PACKAGE_NAME: e.GOOGLE_PACKAGE_NAME })
  if (missing.length === 2) return undefined
  if (missing.length > 0) {
    problems.push(...missing.map((name) => `  ${name}: is required with the other GOOGLE_* variables (Google Play Developer API)`))
    return undefined
  }
  const account = ServiceAccountSchema.safeParse(parseJson(e.GOOGLE_SERVICE_ACCOUNT_JSON ?? ''))
  const privateKey = account.success ? parseKey(account.data.private_key, 'rsa') : undefined
  if (!account.success || !privateKey) {
    problems.push('  GOOGLE_SERVICE_ACCOUNT_JSON: must be the service account key file (JSON with client_email and an RSA private_key)')
    return undefined
  }
  return {
    serviceAccount: { clientEmail: account.data.client_email, privateKey, privateKeyId: account.data.private_key_id, tokenUri: account.data.token_uri },
    packageName: e.GOOGLE_PACKAGE_NAME ?? '',
    baseUrl: (e.GOOGLE_API_BASE_URL ?? GOOGLE_BASE_URL).replace(/\/$/, ''),
  }
}

function readProducts(text: string | undefined, problems: string[]): Record<string, StoreProduct> {
  if (text === undefined) return {}
  const parsed = ProductsSchema.safeParse(parseJson(text))
  if (parsed.success) return parsed.data
  problems.push(`  IAP_PRODUCTS: must be a JSON object of product ids, e.g. {"com.example.portal.team10":{"plan":"team","seats":10}} (${parsed.error.issues[0]?.message ?? 'not valid'})`)
  return {}
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/** A PEM private key of the given type; environment files often carry its line breaks as \n. */
function parseKey(pem: string, type: 'ec' | 'rsa'): KeyObject | undefined {
  try {
    const key = createPrivateKey(pem.replaceAll('\\n', '\n'))
    if (key.asymmetricKeyType !== type) return undefined
    if (type === 'ec' && key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') return undefined
    return key
  } catch {
    return undefined
  }
}

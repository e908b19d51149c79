import { createHash } from 'node:crypto'
import { z } from 'zod'
import type { StoreState } from '~/lib/store/types'
import { signJwt } from './jws'
import type { GoogleConfig } from './store-config'
import { StoreError, type StoreClient, type StoreFacts, type StoreProof } from './store-facts'
import { credentialsRefused, discard, storeFetch, storeJson } from './store-http'

/**
 * The Google Play Developer API (https://developers.google.com/android-publisher):
 * purchases.subscriptionsv2.get, GET /androidpublisher/v3/applications/{packageName}/purchases/
 * subscriptionsv2/tokens/{token}, with an OAuth 2.0 access token of the service account (the JWT
 * bearer grant of RFC 7523 at the account's token_uri, scope androidpublisher), kept until shortly
 * before it expires.
 */

const NAME = 'Google Play'
const SCOPE = 'https://www.googleapis.com/auth/androidpublisher'
const ASSERTION_LIFETIME_S = 60 * 60
/** Renew the access token this long before Google says it expires. */
const TOKEN_MARGIN_MS = 60_000

const TokenSchema = z.object({ access_token: z.string().min(1), expires_in: z.number().positive().optional() })

const LineItemSchema = z.object({
  productId: z.string(),
  expiryTime: z.string().optional(),
  autoRenewingPlan: z.object({ autoRenewEnabled: z.boolean().optional() }).optional(),
})

const SubscriptionSchema = z.object({
  subscriptionState: z.string(),
  latestOrderId: z.string().optional(),
  testPurchase: z.object({}).optional(),
  lineItems: z.array(LineItemSchema).min(1),
})

export function googleClient(config: GoogleConfig, timeoutMs: number): StoreClient {
  let cached: { token: string; until: number } | undefined

  async function accessToken(at: Date): Promise<string> {
    if (cached && cached.until > at.getTime()) return cached.token
    const { serviceAccount } = config
    const iat = Math.floor(at.getTime() / 1000)
    const assertion = signJwt(
      { alg: 'RS256', typ: 'JWT', ...(serviceAccount.privateKeyId && { kid: serviceAccount.privateKeyId }) },
      { iss: serviceAccount.clientEmail, scope: SCOPE, aud: serviceAccount.tokenUri, iat, exp: iat + ASSERTION_LIFETIME_S },
      serviceAccount.privateKey,
    )
    const response = await storeFetch(
      NAME,
      serviceAccount.tokenUri,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
      },
      timeoutMs,
    )
    if (response.status === 400 || response.status === 401 || response.status === 403) throw credentialsRefused(NAME, response.status)
    const parsed = TokenSchema.safeParse(await storeJson(NAME, response))
    if (!response.ok || !parsed.success) throw new StoreError({ kind: 'bad-response', detail: `${NAME}’s sign-in answered no access token.` })
    cached = { token: parsed.data.access_token, until: at.getTime() + (parsed.data.expires_in ?? 3600) * 1000 - TOKEN_MARGIN_MS }
    return cached.token
  }

  async function subscription(purchaseToken: string, at: Date): Promise<z.output<typeof SubscriptionSchema>> {
    const url = `${config.baseUrl}/androidpublisher/v3/applications/${encodeURIComponent(config.packageName)}/purchases/subscriptionsv2/tokens/${encodeURIComponent(purchaseToken)}`
    const response = await storeFetch(NAME, url, { headers: { authorization: `Bearer ${await accessToken(at)}`, accept: 'application/json' } }, timeoutMs)
    if (response.status === 401 || response.status === 403) {
      // A revoked or expired token: the next call signs in again.
      cached = undefined
      throw credentialsRefused(NAME, response.status)
    }
    // 404: unknown token; 410: a purchase that expired long ago (Google keeps them 60 days); 400: not a token.
    if (response.status === 404 || response.status === 410 || response.status === 400) {
      discard(response)
      throw new StoreError({ kind: 'not-found', detail: `${NAME} does not know this purchase for ${config.packageName}.` })
    }
    if (!response.ok) throw new StoreError({ kind: 'bad-response', detail: `${NAME} answered ${response.status}.` })
    const parsed = SubscriptionSchema.safeParse(await storeJson(NAME, response))
    if (!parsed.success) throw new StoreError({ kind: 'bad-response', detail: `${NAME}’s subscription lacks fields we need.` })
    return parsed.data
  }

  function facts(purchaseToken: string, found: z.output<typeof SubscriptionSchema>, productId?: string): StoreFacts {
    const item = (productId === undefined ? undefined : found.lineItems.find((line) => line.productId === productId)) ?? found.lineItems[0]
    if (!item) throw new StoreError({ kind: 'bad-response', detail: `${NAME}’s subscription has no product.` })
    const autoRenew = item.autoRenewingPlan?.autoRenewEnabled ?? null
    const expiry = item.expiryTime === undefined ? null : new Date(item.expiryTime)
    return {
      store: 'google',
      subscriptionKey: createHash('sha256').update(purchaseToken).digest('hex'),
      storeReference: purchaseToken,
      productId: item.productId,
      environment: found.testPurchase ? 'Test' : 'Production',
      state: stateOf(found.subscriptionState, autoRenew),
      expiresAt: expiry && !Number.isNaN(expiry.getTime()) ? expiry : null,
      autoRenew,
      latestTransactionId: found.latestOrderId ?? null,
    }
  }

  return {
    async lookUp(proof: StoreProof, productId: string, at: Date) {
      if (proof.store !== 'google') throw new Error('a Google Play client was asked about another store')
      if (proof.packageName !== config.packageName) throw new StoreError({ kind: 'mismatch', detail: `This purchase was made in ${proof.packageName}, not in ${config.packageName}.`, field: 'packageName' })
      const found = await subscription(proof.purchaseToken, at)
      if (!found.lineItems.some((line) => line.productId === productId)) {
        throw new StoreError({ kind: 'mismatch', detail: `This purchase is of ${found.lineItems.map((line) => line.productId).join(', ')}, not ${productId}.`, field: 'productId' })
      }
      return facts(proof.purchaseToken, found, productId)
    },
    async recheck(storeReference: string, at: Date) {
      return facts(storeReference, await subscription(storeReference, at))
    },
  }
}

/** SubscriptionPurchaseV2.subscriptionState in our words. */
function stateOf(state: string, autoRenew: boolean | null): StoreState {
  switch (state) {
    case 'SUBSCRIPTION_STATE_ACTIVE':
      return autoRenew === false ? 'renewal-off' : 'active'
    // Cancelled by the user: access continues until the expiry time.
    case 'SUBSCRIPTION_STATE_CANCELED':
      return 'renewal-off'
    case 'SUBSCRIPTION_STATE_IN_GRACE_PERIOD':
      return 'grace-period'
    case 'SUBSCRIPTION_STATE_ON_HOLD':
      return 'on-hold'
    case 'SUBSCRIPTION_STATE_PAUSED':
      return 'paused'
    case 'SUBSCRIPTION_STATE_PENDING':
      return 'pending'
    // Expired, revoked (refunded) or a pending purchase abandoned: no access.
    default:
      return 'expired'
  }
}

import { z } from 'zod'
import type { StoreState } from '~/lib/store/types'
import { JwsError, signJwt, verifyAppleJws } from './jws'
import type { AppleConfig } from './store-config'
import { StoreError, type StoreClient, type StoreFacts, type StoreProof } from './store-facts'
import { credentialsRefused, discard, storeFetch, storeJson } from './store-http'

/**
 * The App Store Server API (https://developer.apple.com/documentation/appstoreserverapi):
 * - Get Transaction Info, GET /inApps/v1/transactions/{transactionId}: the purchase the app
 *   reports, to learn its original transaction id and check bundle, product and type;
 * - Get All Subscription Statuses, GET /inApps/v1/subscriptions/{transactionId}: the status (1
 *   active … 5 revoked) with the newest transaction and renewal info, for linking and re-checking.
 * Each request carries an ES256 JWT signed with the App Store Connect API key; every signed
 * transaction and renewal info it answers is verified (server/domain/store/jws.ts).
 */

const NAME = 'The App Store'
/** Apple accepts tokens of up to 60 minutes; a short one limits the harm of a leaked token. */
const TOKEN_LIFETIME_S = 5 * 60
const AUTO_RENEWABLE = 'Auto-Renewable Subscription'

const TransactionSchema = z.object({
  transactionId: z.string(),
  originalTransactionId: z.string(),
  bundleId: z.string(),
  productId: z.string(),
  type: z.string(),
  environment: z.string(),
  expiresDate: z.number().optional(),
  revocationDate: z.number().optional(),
})
type Transaction = z.output<typeof TransactionSchema>

const RenewalSchema = z.object({ autoRenewStatus: z.number().optional() })

const StatusesSchema = z.object({
  bundleId: z.string(),
  environment: z.string(),
  data: z.array(
    z.object({
      lastTransactions: z.array(z.object({ originalTransactionId: z.string(), status: z.number().int(), signedTransactionInfo: z.string(), signedRenewalInfo: z.string().optional() })),
    }),
  ),
})

export function appleClient(config: AppleConfig, timeoutMs: number): StoreClient {
  async function get(path: string, at: Date): Promise<unknown> {
    const response = await storeFetch(NAME, `${config.baseUrl}${path}`, { headers: { authorization: `Bearer ${bearer(config, at)}`, accept: 'application/json' } }, timeoutMs)
    if (response.status === 401 || response.status === 403) throw credentialsRefused(NAME, response.status)
    // 404 4040010 TransactionIdNotFoundError; 400 4000006 InvalidTransactionIdError.
    if (response.status === 404 || response.status === 400) {
      discard(response)
      throw new StoreError({ kind: 'not-found', detail: `${NAME} does not know this purchase in its ${config.environment} environment.` })
    }
    if (!response.ok) throw new StoreError({ kind: 'bad-response', detail: `${NAME} answered ${response.status}.` })
    return storeJson(NAME, response)
  }

  function signed<T>(schema: z.ZodType<T>, jws: string, at: Date): T {
    try {
      const parsed = schema.safeParse(verifyAppleJws(jws, config.rootFingerprints, at))
      if (parsed.success) return parsed.data
    } catch (error) {
      if (!(error instanceof JwsError)) throw error
      throw new StoreError({ kind: 'bad-response', detail: `${NAME}’s signed data could not be verified: ${error.message}.` })
    }
    throw new StoreError({ kind: 'bad-response', detail: `${NAME}’s signed data lacks fields we need.` })
  }

  function ours(transaction: Transaction): void {
    if (transaction.bundleId !== config.bundleId) throw new StoreError({ kind: 'mismatch', detail: 'This purchase was made in another app.', field: 'transactionId' })
    if (transaction.environment !== config.environment) {
      throw new StoreError({ kind: 'mismatch', detail: `This purchase was made in the App Store’s ${transaction.environment} environment; this portal uses ${config.environment}.`, field: 'transactionId' })
    }
  }

  async function status(transactionId: string, at: Date): Promise<StoreFacts> {
    const parsed = StatusesSchema.safeParse(await get(`/inApps/v1/subscriptions/${encodeURIComponent(transactionId)}`, at))
    if (!parsed.success) throw new StoreError({ kind: 'bad-response', detail: `${NAME}’s subscription status lacks fields we need.` })
    const last = parsed.data.data.flatMap((group) => group.lastTransactions)[0]
    if (!last) throw new StoreError({ kind: 'not-found', detail: `${NAME} has no subscription for this purchase.` })
    const latest = signed(TransactionSchema, last.signedTransactionInfo, at)
    ours(latest)
    const renewal = last.signedRenewalInfo ? signed(RenewalSchema, last.signedRenewalInfo, at) : undefined
    const autoRenew = renewal?.autoRenewStatus === undefined ? null : renewal.autoRenewStatus === 1
    return {
      store: 'apple',
      subscriptionKey: latest.originalTransactionId,
      storeReference: latest.originalTransactionId,
      productId: latest.productId,
      environment: latest.environment,
      state: stateOf(last.status, latest, autoRenew),
      expiresAt: latest.expiresDate === undefined ? null : new Date(latest.expiresDate),
      autoRenew,
      latestTransactionId: latest.transactionId,
    }
  }

  return {
    async lookUp(proof: StoreProof, productId: string, at: Date) {
      if (proof.store !== 'apple') throw new Error('an App Store client was asked about another store')
      const info = z.object({ signedTransactionInfo: z.string() }).safeParse(await get(`/inApps/v1/transactions/${encodeURIComponent(proof.transactionId)}`, at))
      if (!info.success) throw new StoreError({ kind: 'bad-response', detail: `${NAME}’s transaction info lacks fields we need.` })
      const transaction = signed(TransactionSchema, info.data.signedTransactionInfo, at)
      ours(transaction)
      if (transaction.type !== AUTO_RENEWABLE) throw new StoreError({ kind: 'mismatch', detail: 'This purchase is not an auto-renewable subscription.', field: 'transactionId' })
      if (transaction.productId !== productId) throw new StoreError({ kind: 'mismatch', detail: `This purchase is of ${transaction.productId}, not ${productId}.`, field: 'productId' })
      return status(transaction.originalTransactionId, at)
    },
    recheck: (storeReference: string, at: Date) => status(storeReference, at),
  }
}

/** Get All Subscription Statuses' status, with the revocation and renewal facts, in our words. */
function stateOf(status: number, latest: Transaction, autoRenew: boolean | null): StoreState {
  if (latest.revocationDate !== undefined || status === 5) return 'refunded'
  if (status === 2) return 'expired'
  if (status === 3) return 'billing-retry'
  if (status === 4) return 'grace-period'
  return autoRenew === false ? 'renewal-off' : 'active'
}

/** The App Store Server API's bearer token (Generating JSON Web Tokens for API requests). */
function bearer(config: AppleConfig, at: Date): string {
  const iat = Math.floor(at.getTime() / 1000)
  return signJwt(
    { alg: 'ES256', kid: config.keyId, typ: 'JWT' },
    { iss: config.issuerId, iat, exp: iat + TOKEN_LIFETIME_S, aud: 'appstoreconnect-v1', bid: config.bundleId },
    config.privateKey,
  )
}

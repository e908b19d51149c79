import { Hono, type Context } from 'hono'
import { completeLink, startLink, storeOverview, verifySubscription, type StoreDeps } from '#server/domain/store/links'
import { operation } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { idempotent } from '#server/http/idempotency'
import { requireSession } from '#server/http/session'
import { LinkCodeSchema, LinkCompleteSchema, StoreLinkResultSchema, StoreOverviewSchema, VerifySchema } from '~/lib/schemas/store'

/**
 * Spec §7 "Billing": linking a subscription bought in a mobile app store (issue 16,
 * docs/store-subscriptions.md). Every mutating call takes an Idempotency-Key (spec §5 purchases).
 */

const TAG = 'Billing'

function storeDeps(c: Context<BackendEnv>): StoreDeps {
  const { db, config } = c.get('deps')
  return { db, config: config.store, secret: config.sessionSecret, publicUrl: config.publicUrl }
}

function meta(c: Context<BackendEnv>) {
  return { ip: c.get('ip'), correlationId: c.get('correlationId') }
}

const notConfigured = 'No app store is configured on this portal (KR_STORE_NOT_CONFIGURED).'
const storeDown = {
  502: { description: 'The store answered something unusable, or refused our credentials (KR_STORE_BAD_RESPONSE); nothing changed.' },
  503: { description: 'The store did not answer in time, could not be reached, or is busy (KR_STORE_UNAVAILABLE, retryAfterSeconds); nothing changed.' },
}

export const storeRoutes = new Hono<BackendEnv>()
  .get(
    '/api/iap/subscriptions',
    operation({
      summary: 'The organisation’s linked store subscriptions, which stores are configured, and whether a link code is live',
      tag: TAG,
      access: 'admin',
      responses: { 200: { description: 'The overview for /settings/link.', schema: StoreOverviewSchema }, 403: 'Not an administrator of this organisation.' },
    }),
    async (c) => c.json(await storeOverview(storeDeps(c), requireSession(c), c.get('deps').now())),
  )
  .post(
    '/api/iap/link/start',
    operation({
      summary: 'Start linking a store subscription: a code (8 characters, 15 minutes, once) and a link for the mobile app',
      description: 'A newer code replaces an unused older one. Only the code’s HMAC is stored.',
      tag: TAG,
      access: 'admin',
      idempotent: true,
      responses: {
        201: { description: 'The code, shown grouped (K7QM-3TXA), its link and expiry.', schema: LinkCodeSchema },
        403: 'Not an administrator of this organisation.',
        409: notConfigured,
      },
    }),
    idempotent,
    async (c) => c.json(await startLink(storeDeps(c), requireSession(c), c.get('deps').now(), meta(c)), 201),
  )
  .post(
    '/api/iap/link/complete',
    operation({
      summary: 'Link a store purchase to the organisation with a link code (the mobile app, signed in to that organisation)',
      description:
        'The store verifies the purchase (Apple: transactionId; Google: purchaseToken and packageName); the subscription is bound to this organisation and its plan and seats become the licence, valid until the store’s expiry.',
      tag: TAG,
      access: 'session',
      body: LinkCompleteSchema,
      idempotent: true,
      responses: {
        200: { description: 'The linked subscription and the licence it set.', schema: StoreLinkResultSchema },
        400: 'The fields have problems: see errors.',
        409: 'The code was used or replaced (KR_LINK_CODE_USED), the subscription belongs to another organisation (KR_STORE_SUBSCRIPTION_LINKED_ELSEWHERE), or the store is not configured (KR_STORE_NOT_CONFIGURED).',
        422: 'The code is not valid here (KR_LINK_CODE_INVALID) or expired (KR_LINK_CODE_EXPIRED); the product is unknown (KR_STORE_PRODUCT_UNKNOWN); the store does not know the purchase (KR_STORE_PURCHASE_NOT_FOUND), it does not match (KR_STORE_PURCHASE_MISMATCH) or is unpaid (KR_STORE_PURCHASE_PENDING).',
        ...storeDown,
      },
    }),
    idempotent,
    async (c) => c.json(await completeLink(storeDeps(c), requireSession(c), c.get('deps').now(), c.req.valid('json'), meta(c))),
  )
  .post(
    '/api/iap/verify',
    operation({
      summary: 'Check a linked subscription with its store now, and update it and the licence it gives (renewed, expired, refunded, cancelled)',
      description: 'The licence changes only while it comes from this subscription; a web checkout or an operator’s change made since stays.',
      tag: TAG,
      access: 'session',
      body: VerifySchema,
      idempotent: true,
      responses: {
        200: { description: 'The subscription as the store sees it now, the licence, and whether this check changed it.', schema: StoreLinkResultSchema },
        400: 'The fields have problems: see errors.',
        403: 'Neither an administrator nor the person who linked it.',
        404: 'No linked subscription has this id in the organisation.',
        409: notConfigured,
        422: 'The store no longer knows the purchase (KR_STORE_PURCHASE_NOT_FOUND).',
        ...storeDown,
      },
    }),
    idempotent,
    async (c) => c.json(await verifySubscription(storeDeps(c), requireSession(c), c.get('deps').now(), c.req.valid('json').subscriptionId, meta(c))),
  )

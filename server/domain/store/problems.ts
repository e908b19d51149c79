import type { ProblemInit } from '#server/http/problem'
import { STORE_NAMES, type StoreKey } from '~/lib/store/types'
import type { StoreFailure } from './store-facts'

/** The problems of linking a store subscription (docs/store-subscriptions.md "Problems"), so each case reads the same everywhere. */

export function storeNotConfigured(store?: StoreKey): ProblemInit {
  const which = store ? `${STORE_NAMES[store]} subscriptions are` : 'App store subscriptions are'
  return {
    status: 409,
    title: 'Store not configured',
    detail: `${which} not set up on this portal, so they cannot be linked.`,
    code: 'KR_STORE_NOT_CONFIGURED',
    remediation: 'An operator sets the store’s APPLE_* or GOOGLE_* variables and IAP_PRODUCTS (docs/store-subscriptions.md). The web checkout and the rest of the portal work without them.',
  }
}

export const linkCodeInvalid = (): ProblemInit => ({
  status: 422,
  title: 'Link code not valid',
  detail: 'This link code is not valid in your organisation. Check the code, and that the app is signed in to the organisation that made it.',
  code: 'KR_LINK_CODE_INVALID',
  remediation: 'An administrator gets a new code on Settings › Link subscription.',
  errors: { code: ['This link code is not valid in your organisation.'] },
})

export const linkCodeExpired = (): ProblemInit => ({
  status: 422,
  title: 'Link code expired',
  detail: 'This link code has expired: codes work for 15 minutes.',
  code: 'KR_LINK_CODE_EXPIRED',
  remediation: 'An administrator gets a new code on Settings › Link subscription.',
  errors: { code: ['This link code has expired.'] },
})

export const linkCodeUsed = (): ProblemInit => ({
  status: 409,
  title: 'Link code already used',
  detail: 'This link code was already used, or a newer code replaced it: each code links once.',
  code: 'KR_LINK_CODE_USED',
  remediation: 'An administrator gets a new code on Settings › Link subscription.',
  errors: { code: ['This link code was already used.'] },
})

export const linkedElsewhere = (): ProblemInit => ({
  status: 409,
  title: 'Subscription linked to another organisation',
  detail: 'This store subscription is already linked to another organisation. A subscription can belong to one organisation only.',
  code: 'KR_STORE_SUBSCRIPTION_LINKED_ELSEWHERE',
  remediation: 'Link it from the organisation it belongs to, or contact support to move it.',
})

export const productUnknown = (productId: string): ProblemInit => ({
  status: 422,
  title: 'Unknown product',
  detail: `The product ${productId} is not a subscription this portal sells.`,
  code: 'KR_STORE_PRODUCT_UNKNOWN',
  errors: { productId: ['This product is not a subscription this portal sells.'] },
})

export const purchasePending = (): ProblemInit => ({
  status: 422,
  title: 'Payment pending',
  detail: 'The store has not received the payment for this subscription yet.',
  code: 'KR_STORE_PURCHASE_PENDING',
  remediation: 'Link it again once the store confirms the payment.',
})

export const subscriptionNotFound = (): ProblemInit => ({
  status: 404,
  title: 'Not found',
  detail: 'No linked subscription has this id in your organisation.',
  code: 'KR_NOT_FOUND',
})

export const onlyAdminOrLinker = (): ProblemInit => ({
  status: 403,
  title: 'Forbidden',
  detail: 'Only administrators, or the person who linked this subscription, can check it.',
  code: 'KR_FORBIDDEN',
})

/** A store call that failed: nothing was changed. */
export function storeProblem(store: StoreKey, failure: StoreFailure): ProblemInit {
  const name = STORE_NAMES[store]
  switch (failure.kind) {
    case 'unavailable':
      return {
        status: 503,
        title: 'Store unavailable',
        detail: `${failure.detail} Nothing was changed.`,
        code: 'KR_STORE_UNAVAILABLE',
        remediation: `Try again in a moment; ${name} may be busy.`,
        retryAfterSeconds: failure.retryAfterSeconds ?? 30,
      }
    case 'bad-response':
      return {
        status: 502,
        title: 'Store answer not usable',
        detail: `${failure.detail} Nothing was changed.`,
        code: 'KR_STORE_BAD_RESPONSE',
        remediation: 'Try again later; if it continues, contact support with the correlation id.',
      }
    case 'not-found':
      return {
        status: 422,
        title: 'Purchase not found',
        detail: failure.detail,
        code: 'KR_STORE_PURCHASE_NOT_FOUND',
        remediation: 'Check that the app sends the purchase of this subscription, from the store this portal uses.',
      }
    case 'mismatch':
      return {
        status: 422,
        title: 'Purchase does not match',
        detail: failure.detail,
        code: 'KR_STORE_PURCHASE_MISMATCH',
        ...(failure.field && { errors: { [failure.field]: [failure.detail] } }),
      }
  }
}

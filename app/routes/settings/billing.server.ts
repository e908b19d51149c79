import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirectDocument } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import type { SeatStanding } from '~/lib/licensing/seats'
import type { ApiClient } from '~/lib/api/types'
import type { BillingCheckout, BillingOverview } from '~/lib/billing/types'
import { failureStatus, replyWithApiError } from '~/lib/forms'
import { CheckoutFormSchema } from '~/lib/schemas/billing'
import { idempotencyKeyOf } from '../admin/invites.server'

/** The billing pages' calls (docs/billing.md). A member who is not an administrator gets `{ isAdmin: false }`. */
export async function loadOverview(
  api: ApiClient,
  headers: Headers,
): Promise<{ isAdmin: true; overview: BillingOverview; seats: SeatStanding } | { isAdmin: false }> {
  const [result, entitlements] = await Promise.all([api.GET('/api/billing/overview'), api.GET('/api/entitlements/me')])
  if (!result.ok && result.error.status === 403) return { isAdmin: false }
  if (!result.ok) throw loadError(result.error, headers)
  if (!entitlements.ok) throw loadError(entitlements.error, headers)
  const me = entitlements.data
  // The seats in the same words as the control panel and Entitlements (seatStandingWords).
  return { isAdmin: true, overview: result.data, seats: { ...me.seats, plan: me.plan, planName: me.planName, lapsed: me.lapsed } }
}

/** A checkout of this organisation named by the return URL, or null when the id is missing or not ours. */
export async function loadCheckout(api: ApiClient, checkoutId: string | null, headers: Headers): Promise<BillingCheckout | null> {
  if (!checkoutId || !/^[0-9a-f-]{36}$/i.test(checkoutId)) return null
  const result = await api.GET('/api/billing/checkout/session/{checkoutId}', { path: { checkoutId } })
  if (result.ok) return result.data
  if (result.error.status === 404 || result.error.status === 403) return null
  throw loadError(result.error, headers)
}

/**
 * Starts the checkout and sends the browser to the provider's payment page (a document
 * navigation: it is another site, or the test provider's page outside the app). The form's key
 * makes a double submit one checkout.
 */
export async function startCheckout(api: ApiClient, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: CheckoutFormSchema })
  if (submission.status !== 'success') return data({ result: submission.reply() }, { status: 400, headers })
  const result = await api.POST('/api/billing/checkout/session', { body: submission.value, idempotencyKey: idempotencyKeyOf(formData, submission.value) })
  if (!result.ok) return data({ result: replyWithApiError(submission, result.error) }, { status: failureStatus(result.error), headers })
  if (!result.data.url) return data({ result: submission.reply({ formErrors: ['The payment provider gave no payment page. Try again.'] }) }, { status: 502, headers })
  throw redirectDocument(result.data.url, { headers })
}

import { data } from 'react-router'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { Banner } from '~/components/ui/banner'
import { ButtonLink } from '~/components/ui/button-link'
import { Card } from '~/components/ui/card'
import { createServerApi } from '~/lib/api.server'
import { useLocale } from '~/root'
import type { Route } from './+types/billing-success'
import { LicenceSummary } from './billing-licence'
import { loadCheckout, loadOverview } from './billing.server'

/**
 * /settings/billing/success (spec §2): where the payment provider sends the browser back after
 * paying. Coming here proves nothing — the licence changes only with the provider's signed webhook
 * — so the page thanks, shows the licence as it is and whether the provider confirmed yet; it
 * reloads by itself when the organisation changes (realtime `Organisation`), or on a reload.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const overview = await loadOverview(api, responseHeaders)
  const checkout = overview.isAdmin ? await loadCheckout(api, new URL(request.url).searchParams.get('checkoutId'), responseHeaders) : null
  return data({ ...overview, checkout }, { headers: responseHeaders })
}

export default function BillingSuccess({ loaderData }: Route.ComponentProps) {
  const locale = useLocale()
  useLiveRevalidation((change) => change.entityType === 'Organisation')
  return (
    <div className="flex max-w-2xl flex-col gap-6">
      <h2 className="text-xl font-semibold">Payment received</h2>
      <p>Thank you — your payment was received. Your licence updates as soon as the payment provider confirms it.</p>
      {loaderData.checkout?.status === 'completed' ? (
        <Banner tone="success" title="Confirmed">
          The payment provider confirmed your payment. Your licence below is up to date.
        </Banner>
      ) : loaderData.checkout?.status === 'open' ? (
        <Banner tone="info" title="Waiting for the payment provider">
          The payment provider has not confirmed the payment yet. This usually takes a few seconds; reload the page if it does not update by itself.
        </Banner>
      ) : null}
      {loaderData.isAdmin ? (
        <Card>
          <h3 className="mb-3 text-lg font-semibold">Your licence</h3>
          <LicenceSummary licence={loaderData.overview.licence} seats={loaderData.seats} locale={locale} />
        </Card>
      ) : null}
      <ButtonLink to="/settings/billing" variant="secondary" className="self-start">
        Back to billing
      </ButtonLink>
    </div>
  )
}

export function meta() {
  return [{ title: 'Payment received · Settings · Site Portal' }]
}

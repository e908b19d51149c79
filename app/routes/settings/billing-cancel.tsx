import { ButtonLink } from '~/components/ui/button-link'

/**
 * /settings/billing/cancel (spec §2): where the payment provider sends the browser back when the
 * checkout is cancelled. Nothing was bought, so nothing changes (docs/billing.md).
 */
export default function BillingCancel() {
  return (
    <div className="flex max-w-2xl flex-col gap-4">
      <h2 className="text-xl font-semibold">Payment cancelled</h2>
      <p>Checkout cancelled. Nothing was charged.</p>
      <p className="text-sm text-muted">Your plan and seats are as they were. You can start again whenever you like.</p>
      <ButtonLink to="/settings/billing" className="self-start">
        Back to billing
      </ButtonLink>
    </div>
  )
}

export function meta() {
  return [{ title: 'Payment cancelled · Settings · Site Portal' }]
}

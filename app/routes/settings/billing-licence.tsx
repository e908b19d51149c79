import { type SeatStanding, seatStandingWords } from '~/lib/licensing/seats'
import { Badge } from '~/components/ui/badge'
import { formatDateTime } from '~/lib/format'
import type { Licence, LicenceSource, LicenceStatus } from '~/lib/licensing/plans'

const STATUS_NAMES: Record<LicenceStatus, string> = { active: 'Active', trialing: 'Trial', past_due: 'Payment overdue', cancelled: 'Cancelled', expired: 'Expired' }
const SOURCE_NAMES: Record<LicenceSource, string> = { default: 'The free plan (nothing bought yet)', checkout: 'Web checkout', store: 'App store subscription', operator: 'Set by the portal operator' }

/** The organisation's licence as the billing pages show it. */
/** The licence as bought; its seats line is the licensing answer (seatStandingWords), as everywhere else. */
export function LicenceSummary({ licence, seats, locale }: { licence: Licence; seats: SeatStanding; locale: string }) {
  const words = seatStandingWords(seats, locale)
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-2 text-sm">
      <dt className="font-medium text-muted">Plan</dt>
      <dd>{licence.planName}</dd>
      <dt className="font-medium text-muted">Seats</dt>
      <dd>
        {words.detail} {words.limit}
      </dd>
      <dt className="font-medium text-muted">Status</dt>
      <dd>
        <Badge tone={licence.status === 'active' || licence.status === 'trialing' ? 'success' : 'warning'}>{STATUS_NAMES[licence.status]}</Badge>
      </dd>
      <dt className="font-medium text-muted">Valid until</dt>
      <dd>{licence.validUntilUtc ? formatDateTime(licence.validUntilUtc, locale) : 'No end date'}</dd>
      <dt className="font-medium text-muted">From</dt>
      <dd>{SOURCE_NAMES[licence.source]}</dd>
    </dl>
  )
}

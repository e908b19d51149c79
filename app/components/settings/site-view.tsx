import { Card } from '~/components/ui/card'
import { WEEKDAYS } from '~/lib/schemas/settings'
import type { SiteSettings } from '~/lib/settings/settings'

/** The organisation's site settings as members other than administrators see them. */
export function SiteView({ site }: { site: SiteSettings }) {
  const days = WEEKDAYS.filter((d) => site.workingDays.includes(d.value)).map((d) => d.label)
  return (
    <Card className="p-5" role="region" aria-label="Organisation">
      <h2 className="mb-1 text-lg font-semibold">Organisation</h2>
      <p className="mb-4 text-sm text-muted">Only administrators of the organisation can change these.</p>
      <dl className="grid grid-cols-1 gap-x-4 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
        <dt className="text-muted">Name</dt>
        <dd>{site.name}</dd>
        <dt className="text-muted">Short name</dt>
        <dd className="font-mono">{site.slug}</dd>
        <dt className="text-muted">Logo</dt>
        <dd>{site.logo ? <img src={site.logo.url} alt={`${site.name} logo`} className="max-h-16 max-w-48 object-contain" /> : 'None'}</dd>
        <dt className="text-muted">Language and region</dt>
        <dd>{site.locale}</dd>
        <dt className="text-muted">Time zone</dt>
        <dd>{site.timeZone.replaceAll('_', ' ')}</dd>
        <dt className="text-muted">Working days</dt>
        <dd>{days.join(', ')}</dd>
      </dl>
    </Card>
  )
}

import { data, Link } from 'react-router'
import { TelemetryChart } from '~/components/admin/telemetry-chart'
import { TelemetryEventFilters, TelemetryEventTable } from '~/components/admin/telemetry-events'
import { cursorPagination } from '~/components/reporting/report-paging'
import { Banner } from '~/components/ui/banner'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { hasTelemetryFilters } from '~/lib/admin/telemetry'
import { createServerApi } from '~/lib/api.server'
import { formatDateTime } from '~/lib/format'
import { useLocale } from '~/root'
import type { Route } from './+types/telemetry'
import { loadTelemetryPage } from './telemetry.server'

/**
 * Administration › Telemetry (spec §2, issue 15): what browsers sent and what the ingest accepted
 * or dropped per day (a server-drawn chart with its table), the newest event (the page's one-row
 * sample on entry), and the events with filters in the address and paging.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  return data(await loadTelemetryPage(api, request), { headers: responseHeaders })
}

export default function Telemetry({ loaderData }: Route.ComponentProps) {
  const { filters, position, stats, latest, list, fieldErrors, notice } = loaderData
  const locale = useLocale()
  const filtered = hasTelemetryFilters(filters)
  return (
    <>
      <PageHeader
        title="Telemetry"
        description="Usage events and frontend errors the organisation’s browsers sent, and what the server accepted or dropped. Usage events are sent only when Configuration › Telemetry is on and Settings › Admin allows them."
      />
      <div className="flex flex-col gap-10">
        <Section title="Ingest" description="Per day (UTC), the last 14 days: events and errors accepted, and dropped as not valid, too large or too many.">
          {stats ? (
            <div className="flex flex-col gap-8">
              <TelemetryChart days={stats.organisation} locale={locale} caption="Sent by the organisation’s people" />
              <TelemetryChart days={stats.untenanted} locale={locale} caption="Sent without an organisation (signed out), the whole server" />
            </div>
          ) : (
            <p className="text-sm text-muted">The figures could not be loaded just now.</p>
          )}
        </Section>
        <Section
          title="Events"
          description={latest ? `Newest first. The latest arrived ${formatDateTime(latest.receivedAtUtc, locale)} (${latest.name}).` : 'Newest first.'}
          actions={
            position.after || filtered ? (
              <Link to="/admin/telemetry" className="text-sm text-primary-strong underline underline-offset-2">
                {filtered ? 'Clear filters' : 'First page'}
              </Link>
            ) : undefined
          }
        >
          <div className="flex flex-col gap-4">
            <TelemetryEventFilters filters={filters} errors={fieldErrors} />
            {notice ? (
              <Banner tone="critical" title="The events could not be loaded" correlationId={notice.correlationId}>
                {notice.message}
              </Banner>
            ) : null}
            {list ? (
              <TelemetryEventTable events={list.items} locale={locale} filtered={filtered} pagination={cursorPagination(position, list.nextCursor, 'Event pages')} />
            ) : null}
          </div>
        </Section>
      </div>
    </>
  )
}

export function meta() {
  return [{ title: 'Telemetry · Site Portal' }]
}

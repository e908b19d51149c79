import { Form, Link } from 'react-router'
import { EmptyState } from '~/components/ui/empty-state'
import { Button } from '~/components/ui/button'
import { DataTable } from '~/components/ui/data-table'
import { Field } from '~/components/ui/field'
import type { PaginationProps } from '~/components/ui/pagination'
import { propertiesLine, type TelemetryEventRow, type TelemetryFilters, telemetryQuery } from '~/lib/admin/telemetry'
import { formatDateTime } from '~/lib/format'
import { TELEMETRY_NAME_FILTER_MAX } from '~/lib/schemas/admin-telemetry'

type FieldErrors = Record<string, string[]>

/** The events' filters: a plain GET form, so they live in the address and work without JavaScript. */
export function TelemetryEventFilters({ filters, errors }: { filters: TelemetryFilters; errors: FieldErrors }) {
  return (
    <Form
      method="get"
      action="/admin/telemetry"
      aria-label="Filter events"
      key={telemetryQuery(filters).toString()}
      className="grid gap-3 sm:grid-cols-2 lg:grid-cols-[2fr_1fr_2fr_auto] lg:items-end"
    >
      <Field
        label="Name starts with"
        errors={errors.name}
        inputProps={{ name: 'name', id: 'telemetry-name', type: 'search', defaultValue: filters.name, maxLength: TELEMETRY_NAME_FILTER_MAX, placeholder: 'web.auth.' }}
      />
      <Field label="Since" errors={errors.since} inputProps={{ name: 'since', id: 'telemetry-since', type: 'date', defaultValue: filters.since.slice(0, 10) }} />
      <Field
        label="Visitor or correlation id"
        errors={errors.visitor}
        inputProps={{ name: 'visitor', id: 'telemetry-visitor', type: 'search', defaultValue: filters.visitor, maxLength: 200, spellCheck: false }}
      />
      <Button type="submit" variant="secondary">
        Show events
      </Button>
    </Form>
  )
}

export function TelemetryEventTable({
  events,
  locale,
  filtered,
  pagination,
}: {
  events: readonly TelemetryEventRow[]
  locale: string
  filtered: boolean
  pagination: PaginationProps
}) {
  return (
    <DataTable
      caption="Events"
      captionHidden
      rows={events}
      rowKey={(e) => e.id}
      pagination={pagination}
      emptyState={
        <EmptyState heading={filtered ? 'No events match' : 'No events yet'} headingLevel={3}>
          {filtered
            ? 'Try another name, day or id.'
            : 'Browsers send usage events once Configuration › Telemetry is on and Settings › Admin allows usage telemetry.'}
        </EmptyState>
      }
      columns={[
        { key: 'name', header: 'Event', rowHeader: true, cell: (e) => <span className="font-mono text-xs break-all">{e.name}</span> },
        { key: 'properties', header: 'Properties', cell: (e) => <span className="text-xs break-words">{propertiesLine(e.properties)}</span> },
        { key: 'when', header: 'When', cell: (e) => <span className="whitespace-nowrap">{formatDateTime(e.occurredAtUtc, locale)}</span> },
        { key: 'who', header: 'Person', hideOnMobile: true, cell: (e) => (e.user ? (e.user.displayName ?? e.user.email ?? 'A former member') : '—') },
        {
          key: 'visitor',
          header: 'Visitor',
          hideOnMobile: true,
          cell: (e) =>
            e.visitorId ? (
              <Link to={`/admin/telemetry?${telemetryQuery({ visitor: e.visitorId })}`} className="font-mono text-xs break-all text-primary-strong underline underline-offset-2">
                {e.visitorId}
              </Link>
            ) : (
              '—'
            ),
        },
      ]}
    />
  )
}

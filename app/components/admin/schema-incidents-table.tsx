import { Link } from 'react-router'
import { DataTable } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import type { PaginationProps } from '~/components/ui/pagination'
import { schemaIncidentsHref, type SchemaIncident, type SchemaIncidentGroup, type SchemaIncidentsQuery } from '~/lib/admin/schema-incidents'
import { formatDateTime } from '~/lib/format'

const code = 'font-mono text-xs break-all'

/** The groups: one row per call and field, with how often and when, and the last mismatch. */
export function SchemaIncidentsTable({
  groups,
  query,
  locale,
  filtered,
  pagination,
}: {
  groups: readonly SchemaIncidentGroup[]
  query: SchemaIncidentsQuery
  locale: string
  filtered: boolean
  pagination: PaginationProps
}) {
  return (
    <DataTable
      caption="Schema incidents by call and field"
      captionHidden
      rows={groups}
      rowKey={(g) => g.group}
      pagination={pagination}
      emptyState={
        <EmptyState heading={filtered ? 'No schema incidents match' : 'No schema incidents'} headingLevel={3}>
          {filtered
            ? 'Try another call, an earlier date or another source.'
            : 'When an answer of the server does not match the shape its call promises (a field missing, a wrong type), the call and field appear here, with when it happened and a correlation id to find the request.'}
        </EmptyState>
      }
      columns={[
        {
          key: 'call',
          header: 'Call',
          rowHeader: true,
          cell: (g) => (
            <span className={code}>
              {g.method} {g.path}
            </span>
          ),
        },
        { key: 'field', header: 'Field', cell: (g) => <span className={code}>{g.field || '(the whole body)'}</span> },
        { key: 'count', header: 'Count', align: 'end', cell: (g) => g.count },
        { key: 'first', header: 'First seen', hideOnMobile: true, cell: (g) => formatDateTime(g.firstSeenUtc, locale) },
        { key: 'last', header: 'Last seen', cell: (g) => formatDateTime(g.lastSeenUtc, locale) },
        {
          key: 'mismatch',
          header: 'Last mismatch',
          hideOnMobile: true,
          cell: (g) => (
            <span className="text-xs break-words">
              Expected <span className={code}>{g.lastExpected}</span>, got <span className={code}>{g.lastGot}</span> ({g.lastStatus}
              {g.source === 'web' ? ', in the browser' : ''})
            </span>
          ),
        },
        {
          key: 'open',
          header: <span className="sr-only">Occurrences</span>,
          cell: (g) => (
            <Link to={schemaIncidentsHref({ ...query, group: g.group })} className="text-sm whitespace-nowrap text-primary-strong underline underline-offset-2">
              Occurrences<span className="sr-only"> of {g.method} {g.path} {g.field}</span>
            </Link>
          ),
        },
      ]}
    />
  )
}

/** One group's occurrences, newest first. */
export function SchemaIncidentOccurrences({ incidents, locale }: { incidents: readonly SchemaIncident[]; locale: string }) {
  return (
    <DataTable
      caption="Occurrences"
      captionHidden
      rows={incidents}
      rowKey={(i) => i.id}
      columns={[
        { key: 'when', header: 'When', rowHeader: true, cell: (i) => formatDateTime(i.occurredAtUtc, locale) },
        { key: 'status', header: 'Status', align: 'end', cell: (i) => i.status },
        { key: 'expected', header: 'Expected', cell: (i) => <span className={code}>{i.expected}</span> },
        { key: 'got', header: 'Got', cell: (i) => <span className={code}>{i.got}</span> },
        { key: 'correlation', header: 'Correlation id', hideOnMobile: true, cell: (i) => (i.correlationId ? <span className={code}>{i.correlationId}</span> : '—') },
        { key: 'release', header: 'Release', hideOnMobile: true, cell: (i) => i.release ?? '—' },
      ]}
    />
  )
}

import { Link } from 'react-router'
import { DataTable } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import type { PaginationProps } from '~/components/ui/pagination'
import { cspReportsHref, sourceOf, type CspReportEntry, type CspReportGroup, type CspReportsQuery, type CspUntenantedGroup } from '~/lib/admin/csp-reports'
import { formatDateTime } from '~/lib/format'

const code = 'font-mono text-xs break-all'

/** The organisation's groups: one row per directive and blocked URL. */
export function CspReportsTable({
  groups,
  query,
  locale,
  filtered,
  pagination,
}: {
  groups: readonly CspReportGroup[]
  query: CspReportsQuery
  locale: string
  filtered: boolean
  pagination: PaginationProps
}) {
  return (
    <DataTable
      caption="CSP reports by directive and blocked address"
      captionHidden
      rows={groups}
      rowKey={(g) => g.group}
      pagination={pagination}
      emptyState={
        <EmptyState heading={filtered ? 'No reports match' : 'No CSP reports'} headingLevel={3}>
          {filtered
            ? 'Try another directive, an earlier date or either disposition.'
            : 'When a browser blocks something on the portal’s pages that the Content Security Policy does not allow (a script from elsewhere, an inline script), it reports it, and it appears here grouped by directive and blocked address.'}
        </EmptyState>
      }
      columns={[
        { key: 'directive', header: 'Directive', rowHeader: true, cell: (g) => <span className={code}>{g.directive}</span> },
        { key: 'blocked', header: 'Blocked', cell: (g) => <span className={code}>{g.blockedUrl}</span> },
        { key: 'count', header: 'Count', align: 'end', cell: (g) => g.count },
        { key: 'first', header: 'First seen', hideOnMobile: true, cell: (g) => formatDateTime(g.firstSeenUtc, locale) },
        { key: 'last', header: 'Last seen', cell: (g) => formatDateTime(g.lastSeenUtc, locale) },
        {
          key: 'sample',
          header: 'Page and source (newest)',
          hideOnMobile: true,
          cell: (g) => (
            <span className="flex flex-col gap-0.5">
              <span className={code}>{g.sampleDocumentUrl ?? '—'}</span>
              {g.sampleSource ? <span className={`${code} text-muted`}>{g.sampleSource}</span> : null}
            </span>
          ),
        },
        {
          key: 'open',
          header: <span className="sr-only">Reports</span>,
          cell: (g) => (
            <Link to={cspReportsHref({ ...query, group: g.group })} className="text-sm whitespace-nowrap text-primary-strong underline underline-offset-2">
              Reports<span className="sr-only"> of {g.directive} {g.blockedUrl}</span>
            </Link>
          ),
        },
      ]}
    />
  )
}

/** One group's reports in full, newest first. */
export function CspReportEntries({ reports, locale }: { reports: readonly CspReportEntry[]; locale: string }) {
  return (
    <DataTable
      caption="Reports"
      captionHidden
      rows={reports}
      rowKey={(r) => r.id}
      columns={[
        { key: 'when', header: 'When', rowHeader: true, cell: (r) => formatDateTime(r.receivedAtUtc, locale) },
        { key: 'page', header: 'Page', cell: (r) => <span className={code}>{r.documentUrl ?? '—'}</span> },
        { key: 'source', header: 'Source', hideOnMobile: true, cell: (r) => <span className={code}>{sourceOf(r.sourceFile, r.lineNumber, r.columnNumber) ?? '—'}</span> },
        { key: 'disposition', header: 'Disposition', cell: (r) => (r.disposition === 'report' ? 'Reported only' : 'Blocked') },
        { key: 'sample', header: 'Sample', hideOnMobile: true, cell: (r) => (r.sample ? <span className={code}>{r.sample}</span> : '—') },
        { key: 'browser', header: 'Browser', hideOnMobile: true, cell: (r) => <span className="text-xs break-words">{r.userAgent ?? '—'}</span> },
      ]}
    />
  )
}

/** Reports that came without an organisation: counts only. */
export function CspUntenantedTable({ groups, locale }: { groups: readonly CspUntenantedGroup[]; locale: string }) {
  return (
    <DataTable
      caption="Reports without an organisation"
      captionHidden
      rows={groups}
      rowKey={(g) => `${g.directive} ${g.blockedUrl}`}
      columns={[
        { key: 'directive', header: 'Directive', rowHeader: true, cell: (g) => <span className={code}>{g.directive}</span> },
        { key: 'blocked', header: 'Blocked', cell: (g) => <span className={code}>{g.blockedUrl}</span> },
        { key: 'count', header: 'Count', align: 'end', cell: (g) => g.count },
        { key: 'last', header: 'Last seen', cell: (g) => formatDateTime(g.lastSeenUtc, locale) },
      ]}
    />
  )
}

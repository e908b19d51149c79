import { Link } from 'react-router'
import { DataTable } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import type { PaginationProps } from '~/components/ui/pagination'
import type { FrontendErrorGroup } from '~/lib/admin/frontend-errors'
import { formatDateTime, formatNumber } from '~/lib/format'

/** The organisation's frontend errors, one row per fingerprint, each opening its own page. */
export function FrontendErrorsTable({
  groups,
  locale,
  filtered,
  pagination,
}: {
  groups: readonly FrontendErrorGroup[]
  locale: string
  filtered: boolean
  pagination: PaginationProps
}) {
  return (
    <DataTable
      caption="Frontend errors"
      captionHidden
      rows={groups}
      rowKey={(g) => g.fingerprint}
      pagination={pagination}
      emptyState={
        <EmptyState heading={filtered ? 'No errors match' : 'No frontend errors'} headingLevel={3}>
          {filtered
            ? 'Try another search, day or id.'
            : 'Errors in people’s browsers appear here when Settings › Admin collects frontend errors (on unless turned off).'}
        </EmptyState>
      }
      columns={[
        {
          key: 'message',
          header: 'Error',
          rowHeader: true,
          cell: (g) => (
            <Link to={`/admin/frontend-errors/${g.fingerprint}`} className="font-medium break-words text-primary-strong underline underline-offset-2">
              {g.message || '(no message)'}
            </Link>
          ),
        },
        { key: 'count', header: 'Times', align: 'end', cell: (g) => formatNumber(g.count, locale) },
        { key: 'users', header: 'People', align: 'end', cell: (g) => formatNumber(g.users, locale) },
        { key: 'visitors', header: 'Visitors', align: 'end', hideOnMobile: true, cell: (g) => formatNumber(g.visitors, locale) },
        { key: 'last', header: 'Last seen', cell: (g) => <span className="whitespace-nowrap">{formatDateTime(g.lastSeenUtc, locale)}</span> },
        { key: 'first', header: 'First seen', hideOnMobile: true, cell: (g) => <span className="whitespace-nowrap">{formatDateTime(g.firstSeenUtc, locale)}</span> },
        { key: 'path', header: 'Last page', hideOnMobile: true, cell: (g) => <span className="font-mono text-xs break-all">{g.lastPath ?? '—'}</span> },
        { key: 'release', header: 'Release', hideOnMobile: true, cell: (g) => <span className="font-mono text-xs break-all">{g.lastRelease ?? '—'}</span> },
      ]}
    />
  )
}

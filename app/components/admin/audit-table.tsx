import { Link } from 'react-router'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import type { PaginationProps } from '~/components/ui/pagination'
import { type AuditEntry, type AuditFilterValues, auditHref } from '~/lib/admin/audit'
import { formatDateTime } from '~/lib/format'

const linkClass = 'text-primary-strong underline underline-offset-2'

/**
 * The log: when (in the reader's locale), who, what, about what, from where, and the correlation
 * id that ties it to the request's logs. A row's person or target narrows the log to them; the
 * entry's data opens in place (a native disclosure, no JavaScript needed).
 */
export function AuditTable({
  entries,
  locale,
  filters,
  filtered,
  pagination,
}: {
  entries: readonly AuditEntry[]
  locale: string
  filters: AuditFilterValues
  filtered: boolean
  pagination: PaginationProps
}) {
  const columns: Array<DataTableColumn<AuditEntry>> = [
    {
      key: 'when',
      header: 'When',
      rowHeader: true,
      cell: (e) => (
        <span className="flex flex-col">
          <time dateTime={e.createdAtUtc} className="whitespace-nowrap">
            {formatDateTime(e.createdAtUtc, locale)}
          </time>
          <span className="text-xs font-normal text-muted">Entry {e.chainSeq}</span>
        </span>
      ),
    },
    {
      key: 'who',
      header: 'Who',
      cell: (e) =>
        e.actor ? (
          <span className="flex min-w-40 flex-col">
            <Link to={auditHref({ ...filters, actorUserId: e.actor.id })} className={linkClass}>
              {e.actor.displayName ?? 'Removed user'}
            </Link>
            {e.actor.email ? <span className="text-xs break-words text-muted">{e.actor.email}</span> : null}
          </span>
        ) : (
          <span className="text-muted">System</span>
        ),
    },
    {
      key: 'action',
      header: 'Action',
      cell: (e) => (
        <span className="flex flex-col gap-1">
          <code className="font-mono text-xs whitespace-nowrap">{e.action}</code>
          {e.data && Object.keys(e.data).length > 0 ? (
            <details className="text-xs">
              <summary className="cursor-pointer text-primary-strong">Details</summary>
              <pre className="mt-1 max-w-md overflow-x-auto rounded bg-surface-muted p-2 whitespace-pre-wrap break-all">{JSON.stringify(e.data, null, 2)}</pre>
            </details>
          ) : null}
        </span>
      ),
    },
    {
      key: 'target',
      header: 'Target',
      cell: (e) =>
        e.targetType || e.targetId ? (
          <Link to={auditHref({ ...filters, targetType: e.targetType ?? '', targetId: e.targetId ?? '' })} className={`${linkClass} flex min-w-32 flex-col`}>
            <span>{e.targetType ?? 'Target'}</span>
            {e.targetId ? <span className="font-mono text-xs break-all">{e.targetId}</span> : null}
          </Link>
        ) : (
          <span className="text-muted">—</span>
        ),
    },
    { key: 'ip', header: 'From', hideOnMobile: true, cell: (e) => (e.ip ? <span className="font-mono text-xs">{e.ip}</span> : <span className="text-muted">—</span>) },
    {
      key: 'correlation',
      header: 'Correlation id',
      hideOnMobile: true,
      cell: (e) => (e.correlationId ? <code className="font-mono text-xs break-all select-all">{e.correlationId}</code> : <span className="text-muted">—</span>),
    },
  ]
  return (
    <DataTable
      caption="Audit log, newest first"
      captionHidden
      columns={columns}
      rows={entries}
      rowKey={(e) => e.id}
      pagination={pagination}
      emptyState={
        <EmptyState heading={filtered ? 'No entries match these filters' : 'No entries yet'} headingLevel={3}>
          {filtered ? 'Change or clear the filters to see more of the log.' : 'Sign-ins, changes to people and settings and other security-relevant actions are recorded here.'}
        </EmptyState>
      }
    />
  )
}

import { Link } from 'react-router'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import type { PaginationProps } from '~/components/ui/pagination'
import { type AuditEntry, type AuditFilterValues, auditHref } from '~/lib/admin/audit'
import { auditSentence } from '~/lib/admin/audit-words'
import { formatDateTime } from '~/lib/format'

const linkClass = 'text-primary-strong underline underline-offset-2'

/** A target's kind in words: "DocumentFolder" is "document folder", "user" "user". */
function targetKindWords(targetType: string): string {
  return targetType
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[._-]+/g, ' ')
    .toLowerCase()
}

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
      header: 'What happened',
      cell: (e) => (
        <span className="flex min-w-48 flex-col gap-1">
          <span>{auditSentence(e)}</span>
          {e.targetType ? (
            <Link to={auditHref({ ...filters, targetType: e.targetType, targetId: e.targetId ?? '' })} className={`${linkClass} text-xs`}>
              {e.targetName ? `More about ${e.targetName}` : `More about this ${targetKindWords(e.targetType)}`}
            </Link>
          ) : null}
          {/* The record as stored (its key, the ids, the data): behind a toggle, for whoever needs them. */}
          <details className="text-xs">
            <summary className="cursor-pointer text-primary-strong">Details</summary>
            <dl className="mt-1 grid grid-cols-[max-content_minmax(0,1fr)] gap-x-2 text-muted">
              <dt>Action</dt>
              <dd className="font-mono break-all">{e.action}</dd>
              {e.targetId ? (
                <>
                  <dt>Target</dt>
                  <dd className="font-mono break-all">
                    {e.targetType} {e.targetId}
                    {e.targetName ? ` (${e.targetName})` : ''}
                  </dd>
                </>
              ) : null}
              {e.correlationId ? (
                <>
                  <dt>Correlation id</dt>
                  <dd className="font-mono break-all select-all">{e.correlationId}</dd>
                </>
              ) : null}
            </dl>
            {e.data && Object.keys(e.data).length > 0 ? (
              <pre className="mt-1 max-w-md overflow-x-auto rounded bg-surface-muted p-2 whitespace-pre-wrap break-all">{JSON.stringify(e.data, null, 2)}</pre>
            ) : null}
          </details>
        </span>
      ),
    },
    { key: 'ip', header: 'From', hideOnMobile: true, cell: (e) => (e.ip ? <span className="font-mono text-xs">{e.ip}</span> : <span className="text-muted">—</span>) },
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

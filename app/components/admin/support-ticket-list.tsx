import type { ReactNode } from 'react'
import { Link } from 'react-router'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import type { PaginationProps } from '~/components/ui/pagination'
import { SUPPORT_ADMIN_STATUS_LABELS, SUPPORT_STATUS_LABELS, type SupportTicket } from '~/lib/admin/support'
import { formatDateTime } from '~/lib/format'
import { SupportStatusBadge } from './support-thread'

/** The tickets of a list page: the user's own (Settings) or the organisation's (admin), newest first. */
export function SupportTicketList({
  tickets,
  locale,
  side,
  caption,
  emptyState,
  pagination,
}: {
  tickets: readonly SupportTicket[]
  locale: string
  side: 'user' | 'admin'
  caption: string
  emptyState: ReactNode
  pagination?: PaginationProps | undefined
}) {
  const base = side === 'user' ? '/settings/support' : '/admin/support'
  const columns: Array<DataTableColumn<SupportTicket>> = [
    { key: 'number', header: 'No.', cell: (t) => `#${t.number}` },
    {
      key: 'subject',
      header: 'Subject',
      rowHeader: true,
      cell: (t) => (
        <Link to={`${base}/${t.id}`} className="break-words text-primary-strong underline underline-offset-2">
          {t.subject}
        </Link>
      ),
    },
    { key: 'status', header: 'Status', cell: (t) => <SupportStatusBadge status={t.status} labels={side === 'admin' ? SUPPORT_ADMIN_STATUS_LABELS : SUPPORT_STATUS_LABELS} /> },
    ...(side === 'admin'
      ? [
          { key: 'opener', header: 'Opened by', cell: (t: SupportTicket) => t.openedBy?.displayName ?? 'A former member', hideOnMobile: true },
          { key: 'assignee', header: 'Assignee', cell: (t: SupportTicket) => t.assignee?.displayName ?? 'Nobody', hideOnMobile: true },
        ]
      : []),
    { key: 'replies', header: 'Replies', align: 'end', cell: (t) => t.messageCount, hideOnMobile: true },
    { key: 'updated', header: 'Last change', cell: (t) => <time dateTime={t.updatedAtUtc}>{formatDateTime(t.updatedAtUtc, locale)}</time>, hideOnMobile: true },
  ]
  return <DataTable caption={caption} columns={columns} rows={tickets} rowKey={(t) => t.id} emptyState={emptyState} pagination={pagination} />
}

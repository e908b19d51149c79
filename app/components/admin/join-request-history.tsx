import { Badge, type BadgeTone } from '~/components/ui/badge'
import { DataTable } from '~/components/ui/data-table'
import type { PaginationProps } from '~/components/ui/pagination'
import { type AdminJoinRequest, type JoinRequestStatus, roleLabel, STATUS_LABELS } from '~/lib/admin/join-requests'
import { formatDateTime } from '~/lib/format'

const TONES: Record<JoinRequestStatus, BadgeTone> = { pending: 'info', approved: 'success', declined: 'critical', withdrawn: 'neutral' }

export function JoinRequestStatusBadge({ status }: { status: JoinRequestStatus }) {
  return <Badge tone={TONES[status]}>{STATUS_LABELS[status]}</Badge>
}

/** Decided (and pending, with "All") join requests as a table: who, what was decided, by whom, when. */
export function JoinRequestHistory({
  requests,
  locale,
  caption,
  emptyState,
  pagination,
}: {
  requests: AdminJoinRequest[]
  locale: string
  caption: string
  emptyState: React.ReactNode
  pagination?: PaginationProps
}) {
  return (
    <DataTable
      caption={caption}
      captionHidden
      rows={requests}
      rowKey={(r) => r.id}
      emptyState={emptyState}
      pagination={pagination}
      columns={[
        {
          key: 'person',
          header: 'Person',
          rowHeader: true,
          cell: (r) => (
            <span className="flex flex-col">
              <span>{r.requester.displayName}</span>
              <span className="text-xs font-normal break-all text-muted">{r.requester.email}</span>
            </span>
          ),
        },
        { key: 'status', header: 'Status', cell: (r) => <JoinRequestStatusBadge status={r.status} /> },
        { key: 'role', header: 'Role', cell: (r) => (r.status === 'approved' ? roleLabel(r.roleKey) : '—') },
        { key: 'reason', header: 'Reason or message', cell: (r) => <span className="whitespace-pre-line">{r.declineReason ?? r.message ?? '—'}</span> },
        { key: 'decidedBy', header: 'Decided by', hideOnMobile: true, cell: (r) => r.decidedBy?.displayName ?? '—' },
        { key: 'asked', header: 'Asked', hideOnMobile: true, cell: (r) => formatDateTime(r.createdAtUtc, locale) },
        { key: 'decided', header: 'Decided', cell: (r) => (r.decidedAtUtc ? formatDateTime(r.decidedAtUtc, locale) : '—') },
      ]}
    />
  )
}

import { Badge, type BadgeTone } from '~/components/ui/badge'
import { DataTable } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { formatDateTime } from '~/lib/format'

/** One of the signed-in person's join requests, as GET /api/join-requests/mine answers it. */
export type MyJoinRequest = {
  id: string
  organisationName: string
  organisationSlug: string
  status: string
  declineReason: string | null
  createdAt: string
  decidedAt: string | null
}

const TONES: Record<string, BadgeTone> = { pending: 'info', approved: 'success', declined: 'critical', withdrawn: 'neutral' }
const LABELS: Record<string, string> = { pending: 'Waiting', approved: 'Approved', declined: 'Declined', withdrawn: 'Withdrawn' }

export function JoinRequestsMine({ requests, locale }: { requests: readonly MyJoinRequest[]; locale: string }) {
  return (
    <DataTable
      caption="Your requests to join"
      captionHidden
      rows={requests}
      rowKey={(r) => r.id}
      emptyState={<EmptyState heading="No requests yet">When you ask an organisation to let you join, the request and its answer show here.</EmptyState>}
      columns={[
        { key: 'organisation', header: 'Organisation', rowHeader: true, cell: (r) => r.organisationName },
        { key: 'status', header: 'Status', cell: (r) => <Badge tone={TONES[r.status] ?? 'neutral'}>{LABELS[r.status] ?? r.status}</Badge> },
        { key: 'asked', header: 'Asked', hideOnMobile: true, cell: (r) => formatDateTime(r.createdAt, locale) },
        {
          key: 'answer',
          header: 'Answer',
          cell: (r) => (r.decidedAt ? `${formatDateTime(r.decidedAt, locale)}${r.declineReason ? `: ${r.declineReason}` : ''}` : '—'),
        },
      ]}
    />
  )
}

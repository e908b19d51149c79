import { Banner } from '~/components/ui/banner'
import { DataTable } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import type { TransmittalRecipient } from '~/lib/doc-control/types'
import { formatDateTime } from '~/lib/format'
import { RecipientStatusBadge } from './transmittal-labels'

/**
 * Who received it and how far each has got: sent, opened, downloaded, acknowledged, responded,
 * with the times in the user's locale. The sender also gets who has not opened it yet, named
 * (beyond Aconex, which only counts).
 */
export function TransmittalRecipients({ recipients, locale, sender }: { recipients: readonly TransmittalRecipient[]; locale: string; sender: boolean }) {
  const when = (at: string | null) => (at ? formatDateTime(at, locale) : <span className="text-muted">–</span>)
  const unopened = recipients.filter((recipient) => recipient.status === 'sent')
  return (
    <div className="flex flex-col gap-4">
      {sender && unopened.length > 0 ? (
        <Banner tone="warning" title={unopened.length === 1 ? '1 recipient has not opened it yet' : `${unopened.length} recipients have not opened it yet`}>
          {unopened.map((recipient) => recipient.displayName).join(', ')}
        </Banner>
      ) : null}
      <DataTable
        caption="Recipients"
        captionHidden
        columns={[
          {
            key: 'name',
            header: 'Recipient',
            rowHeader: true,
            cell: (r: TransmittalRecipient) => (
              <span className="flex flex-col">
                <span>{r.displayName}</span>
                <span className="text-xs font-normal break-all text-muted">{r.email}</span>
              </span>
            ),
          },
          { key: 'status', header: 'Status', cell: (r) => <RecipientStatusBadge status={r.status} /> },
          { key: 'opened', header: 'Opened', cell: (r) => when(r.openedAt), hideOnMobile: true },
          {
            key: 'downloaded',
            header: 'Downloaded',
            cell: (r) =>
              r.downloads > 0 ? (
                <span>
                  {when(r.downloadedAt)}
                  {r.downloads > 1 ? <span className="text-muted"> ({r.downloads} times)</span> : null}
                </span>
              ) : (
                when(null)
              ),
            hideOnMobile: true,
          },
          { key: 'acknowledged', header: 'Acknowledged', cell: (r) => when(r.acknowledgedAt) },
          {
            key: 'responded',
            header: 'Response',
            cell: (r) =>
              r.respondedAt ? (
                <span className="flex flex-col gap-1">
                  <span>{when(r.respondedAt)}</span>
                  {r.response ? <span className="break-words whitespace-pre-line text-muted">{r.response}</span> : null}
                </span>
              ) : (
                when(null)
              ),
          },
        ]}
        rows={recipients}
        rowKey={(r) => r.id}
        emptyState={<EmptyState heading="No recipients." headingLevel={3} />}
      />
    </div>
  )
}

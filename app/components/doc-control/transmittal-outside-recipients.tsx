import { Banner } from '~/components/ui/banner'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { DataTable } from '~/components/ui/data-table'
import type { OutsideRecipient, WorkflowRevision } from '~/lib/doc-control/types'
import { formatDateTime } from '~/lib/format'
import { RecipientStatusBadge } from './transmittal-labels'

/**
 * The outside contacts a transmittal went to by link (issue 32), for its sender: "Acknowledged by …
 * at …", when each opened it and downloaded (and how often), who has not opened it yet, when the
 * link expires; who was told that a revision they received is superseded; and "Revoke link…"
 * after a confirmation.
 */
export function TransmittalOutsideRecipients({
  recipients,
  revisions,
  locale,
  canRevoke,
}: {
  recipients: readonly OutsideRecipient[]
  revisions: readonly WorkflowRevision[]
  locale: string
  canRevoke: boolean
}) {
  const when = (at: string | null) => (at ? formatDateTime(at, locale) : <span className="text-muted">–</span>)
  const nameOf = new Map(revisions.map((r) => [r.revisionId, `${r.number} ${r.code}`]))
  const told = recipients.flatMap((r) => r.supersededNotices.map((n) => ({ ...n, recipient: r })))
  const unopened = recipients.filter((r) => r.status === 'sent' && r.revokedAt === null)
  const acknowledged = recipients.filter((r) => r.acknowledgedAt !== null)
  return (
    <div className="flex flex-col gap-4">
      {acknowledged.length > 0 ? (
        <ul aria-label="Receipts of outside contacts" className="flex flex-col gap-1 text-sm">
          {acknowledged.map((r) => (
            <li key={r.id}>
              Acknowledged by {r.name}
              {r.company ? ` (${r.company})` : ''} at {formatDateTime(r.acknowledgedAt ?? '', locale)}
            </li>
          ))}
        </ul>
      ) : null}
      {told.length > 0 ? (
        <ul aria-label="Superseded notices to outside contacts" className="flex flex-col gap-1 text-sm">
          {told.map((n) => (
            <li key={`${n.recipient.id}-${n.revisionId}`}>
              {n.recipient.name} was told {nameOf.get(n.revisionId) ?? 'a revision'} is superseded, {formatDateTime(n.at, locale)}
            </li>
          ))}
        </ul>
      ) : null}
      {unopened.length > 0 ? (
        <Banner tone="warning" title={unopened.length === 1 ? '1 outside contact has not opened it yet' : `${unopened.length} outside contacts have not opened it yet`}>
          {unopened.map((r) => r.name).join(', ')}
        </Banner>
      ) : null}
      <DataTable
        caption="Outside contacts"
        captionHidden
        columns={[
          {
            key: 'name',
            header: 'Contact',
            rowHeader: true,
            cell: (r: OutsideRecipient) => (
              <span className="flex flex-col">
                <span>{r.name}</span>
                {r.company ? <span className="text-xs font-normal break-words text-muted">{r.company}</span> : null}
                <span className="text-xs font-normal break-all text-muted">{r.email}</span>
              </span>
            ),
          },
          { key: 'status', header: 'Status', cell: (r) => (r.revokedAt ? <span className="text-muted">Link revoked</span> : <RecipientStatusBadge status={r.status} />) },
          {
            key: 'opened',
            header: 'Opened',
            cell: (r) => (
              <span>
                {when(r.openedAt)}
                {r.views > 1 ? <span className="text-muted"> ({r.views} views)</span> : null}
              </span>
            ),
            hideOnMobile: true,
          },
          {
            key: 'downloaded',
            header: 'Downloaded',
            cell: (r) => (
              <span>
                {when(r.downloadedAt)}
                {r.downloads > 1 ? <span className="text-muted"> ({r.downloads} downloads)</span> : null}
              </span>
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
          {
            key: 'link',
            header: 'Link',
            cell: (r) =>
              r.revokedAt ? (
                <span className="text-muted">Revoked {formatDateTime(r.revokedAt, locale)}</span>
              ) : (
                <span className="flex flex-col items-start gap-1">
                  <span>{r.expiresAt ? `Works until ${formatDateTime(r.expiresAt, locale)}` : 'Not sent yet'}</span>
                  {canRevoke && r.expiresAt ? (
                    <ConfirmDialog
                      triggerLabel="Revoke link…"
                      title={`Revoke ${r.name}’s link?`}
                      confirmLabel="Yes, revoke link"
                      pendingLabel="Revoking…"
                      intent="revoke-link"
                      fields={{ linkId: r.id }}
                    >
                      The link stops working at once: {r.name} can no longer open or download this transmittal. What they did before stays recorded.
                    </ConfirmDialog>
                  ) : null}
                </span>
              ),
          },
        ]}
        rows={recipients}
        rowKey={(r) => r.id}
      />
    </div>
  )
}

import { Badge } from '~/components/ui/badge'
import { Card } from '~/components/ui/card'
import { fileSize, statusTone, SUPPORT_STATUS_LABELS, type SupportStatus, type SupportTicketDetail } from '~/lib/admin/support'
import { formatDateTime } from '~/lib/format'

/** A ticket's status as a badge; the admin side passes its own labels. */
export function SupportStatusBadge({ status, labels = SUPPORT_STATUS_LABELS }: { status: SupportStatus; labels?: Record<SupportStatus, string> }) {
  return <Badge tone={statusTone(status)}>{labels[status]}</Badge>
}

/**
 * A ticket's thread (docs/admin/support.md "Screens"): what the opener wrote first, then every
 * reply in order, support's marked as such, and the attachments with their download links.
 */
export function SupportThread({ ticket, locale, viewer }: { ticket: SupportTicketDetail; locale: string; viewer: 'user' | 'admin' }) {
  const opener = ticket.openedBy?.displayName ?? 'A former member'
  return (
    <div className="flex flex-col gap-6">
      <ol className="flex flex-col gap-4" aria-label="Conversation">
        <li>
          <Card className="p-4">
            <p className="mb-2 text-sm text-muted">
              <span className="font-medium text-text">{viewer === 'user' ? 'You' : opener}</span> opened the ticket on{' '}
              <time dateTime={ticket.createdAtUtc}>{formatDateTime(ticket.createdAtUtc, locale)}</time>
            </p>
            <p className="text-sm break-words whitespace-pre-wrap">{ticket.body}</p>
          </Card>
        </li>
        {ticket.messages.map((message) => {
          const who = message.fromSupport ? `${message.author?.displayName ?? 'Support'} (support)` : viewer === 'user' ? 'You' : (message.author?.displayName ?? opener)
          return (
            <li key={message.id}>
              <Card className={message.fromSupport ? 'border-primary/40 bg-primary/5 p-4' : 'p-4'}>
                <p className="mb-2 text-sm text-muted">
                  <span className="font-medium text-text">{who}</span> wrote on <time dateTime={message.createdAtUtc}>{formatDateTime(message.createdAtUtc, locale)}</time>
                </p>
                <p className="text-sm break-words whitespace-pre-wrap">{message.body}</p>
              </Card>
            </li>
          )
        })}
      </ol>
      <section aria-labelledby="support-attachments-heading">
        <h2 id="support-attachments-heading" className="mb-2 text-base font-semibold">
          Attachments
        </h2>
        {ticket.attachments.length === 0 ? (
          <p className="text-sm text-muted">No files attached yet.</p>
        ) : (
          <ul className="flex flex-col gap-2">
            {ticket.attachments.map((attachment) => (
              <li key={attachment.id} className="text-sm break-all">
                <a href={attachment.downloadUrl} download={attachment.fileName} className="font-medium text-primary-strong underline underline-offset-2">
                  {attachment.fileName}
                </a>{' '}
                <span className="text-muted">
                  ({fileSize(attachment.sizeBytes)}, {attachment.uploadedBy?.displayName ?? 'a former member'}, {formatDateTime(attachment.createdAtUtc, locale)})
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  )
}

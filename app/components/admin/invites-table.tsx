import { Form, Link } from 'react-router'
import { Badge, type BadgeTone } from '~/components/ui/badge'
import { buttonClasses } from '~/components/ui/button'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { CsrfInput } from '~/components/ui/csrf-input'
import { DataTable } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { SubmitButton } from '~/components/ui/submit-button'
import { INVITE_STATUS_LABELS, INVITE_STATUSES, type Invite, type InviteStatus } from '~/lib/admin/invites'
import { formatDateTime } from '~/lib/format'

const STATUS_TONES: Record<InviteStatus, BadgeTone> = { pending: 'info', accepted: 'success', cancelled: 'neutral', expired: 'warning' }

export function InviteStatusBadge({ status }: { status: InviteStatus }) {
  return <Badge tone={STATUS_TONES[status]}>{INVITE_STATUS_LABELS[status]}</Badge>
}

/** The status filter: links, so it lives in the URL and works without JavaScript. */
export function InviteStatusFilter({ status, hrefFor }: { status: InviteStatus | null; hrefFor: (status: InviteStatus | null) => string }) {
  const choices: Array<{ value: InviteStatus | null; label: string }> = [
    { value: null, label: 'All' },
    ...INVITE_STATUSES.map((s) => ({ value: s, label: INVITE_STATUS_LABELS[s] })),
  ]
  return (
    <nav aria-label="Filter invites by status" className="mb-4">
      <ul className="flex flex-wrap gap-2">
        {choices.map((choice) => (
          // Keyed by the current status too: a link that changes look is a new element, not a colour transition.
          <li key={`${choice.label}-${status ?? 'all'}`}>
            <Link
              to={hrefFor(choice.value)}
              aria-current={choice.value === status ? 'page' : undefined}
              className={buttonClasses({ variant: choice.value === status ? 'primary' : 'secondary', size: 'sm' })}
            >
              {choice.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  )
}

/** The organisation's invites with status badges; pending and expired ones can be sent again or cancelled (after a confirmation). */
export function InvitesTable({
  invites,
  locale,
  nextCursor,
  isFirstPage,
  filtered,
}: {
  invites: readonly Invite[]
  locale: string
  nextCursor: string | null
  isFirstPage: boolean
  filtered: boolean
}) {
  return (
    <DataTable
      caption="Invitations"
      captionHidden
      rows={invites}
      rowKey={(invite) => invite.id}
      emptyState={
        <EmptyState heading={filtered ? 'No invitations with this status' : 'No invitations yet'}>
          {filtered ? 'Choose another status above, or All.' : 'Invite someone with the form above: they get an e-mail with a link to join.'}
        </EmptyState>
      }
      pagination={{
        previous: isFirstPage ? null : { after: null },
        next: nextCursor ? { after: nextCursor } : null,
        label: 'Invitation pages',
        summary: isFirstPage ? 'First page' : 'Later page',
      }}
      columns={[
        { key: 'email', header: 'E-mail', rowHeader: true, cell: (invite) => <span className="break-all">{invite.email}</span> },
        { key: 'role', header: 'Role', cell: (invite) => invite.roleName },
        { key: 'status', header: 'Status', cell: (invite) => <InviteStatusBadge status={invite.status} /> },
        {
          key: 'sent',
          header: 'Sent',
          hideOnMobile: true,
          cell: (invite) => (
            <span>
              {formatDateTime(invite.lastSentAtUtc, locale)}
              {invite.sendCount > 1 ? ` (${invite.sendCount} times)` : ''}
              {invite.invitedBy ? <span className="block text-xs text-muted">by {invite.invitedBy.displayName}</span> : null}
            </span>
          ),
        },
        {
          key: 'expires',
          header: 'Link works until',
          hideOnMobile: true,
          cell: (invite) =>
            invite.status === 'accepted' && invite.acceptedAtUtc ? `Accepted ${formatDateTime(invite.acceptedAtUtc, locale)}` : formatDateTime(invite.expiresAtUtc, locale),
        },
        {
          key: 'actions',
          header: <span className="sr-only">Actions</span>,
          cell: (invite) =>
            invite.status === 'pending' || invite.status === 'expired' ? (
              <div className="flex flex-wrap items-start gap-2">
                <Form method="post">
                  <CsrfInput />
                  <input type="hidden" name="inviteId" value={invite.id} />
                  <SubmitButton variant="secondary" size="sm" intent="resend" pendingLabel="Sending…" aria-label={`Resend the invitation to ${invite.email}`}>
                    Resend
                  </SubmitButton>
                </Form>
                <ConfirmDialog
                  triggerLabel="Cancel…"
                  title={`Cancel the invitation to ${invite.email}?`}
                  confirmLabel="Yes, cancel invitation"
                  pendingLabel="Cancelling…"
                  intent="cancel"
                  fields={{ inviteId: invite.id }}
                >
                  The link in the e-mail stops working. You can invite the address again later.
                </ConfirmDialog>
              </div>
            ) : null,
        },
      ]}
    />
  )
}

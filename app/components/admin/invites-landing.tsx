import { Badge, type BadgeTone } from '~/components/ui/badge'
import { INVITE_STATUS_LABELS, type InviteLanding, PROJECT_INVITE_STATUS_LABELS, type ProjectInviteLanding } from '~/lib/admin/invites'
import { formatDateTime } from '~/lib/format'
import { projectTitle } from '~/lib/reporting/types'
import { useLocale } from '~/root'

export type LandingKind = 'invite' | 'project'

const TONES: Record<string, BadgeTone> = { pending: 'info', active: 'info', accepted: 'success', 'used-up': 'neutral', cancelled: 'neutral', expired: 'warning' }

/** Who invites whom to what, the message, and what the link's state means. */
export function InviteLandingView({ kind, landing }: { kind: LandingKind; landing: InviteLanding | ProjectInviteLanding }) {
  const locale = useLocale()
  const inviter = landing.inviterName ?? 'An administrator'
  const label =
    kind === 'project' ? PROJECT_INVITE_STATUS_LABELS[landing.status as ProjectInviteLanding['status']] : INVITE_STATUS_LABELS[landing.status as InviteLanding['status']]
  const open = landing.status === 'pending' || landing.status === 'active'
  return (
    <div className="flex flex-col gap-4 text-sm text-text">
      <p className="text-base">
        {kind === 'project' && 'projectTitle' in landing ? (
          <>
            {inviter} invites you to the project <strong>{projectTitle(landing.projectTitle)}</strong> of <strong>{landing.organisationName}</strong>
          </>
        ) : (
          <>
            {inviter} invites you to join <strong>{landing.organisationName}</strong>
          </>
        )}{' '}
        on Site Portal as <strong>{landing.roleName}</strong>.
      </p>
      {landing.email ? (
        <p>
          Invitation for <strong className="break-all">{landing.email}</strong>
        </p>
      ) : null}
      {landing.message ? (
        <blockquote className="border-l-4 border-border pl-3 whitespace-pre-line text-muted">
          <span className="sr-only">Message from {inviter}: </span>
          {landing.message}
        </blockquote>
      ) : null}
      <p className="flex flex-wrap items-center gap-2">
        <Badge tone={TONES[landing.status] ?? 'neutral'}>{label}</Badge>
        <span className={open ? 'text-muted' : 'font-medium'} data-testid="invite-status-detail">
          {landing.statusDetail}
        </span>
      </p>
      {open ? <p className="text-muted">The invitation works until {formatDateTime(landing.expiresAtUtc, locale)}.</p> : null}
    </div>
  )
}

/** Invites and project invites as the API answers them (docs/admin/invites.md). */

export const INVITE_STATUSES = ['pending', 'accepted', 'cancelled', 'expired'] as const
export type InviteStatus = (typeof INVITE_STATUSES)[number]

export const INVITE_STATUS_LABELS: Record<InviteStatus, string> = {
  pending: 'Pending',
  accepted: 'Accepted',
  cancelled: 'Cancelled',
  expired: 'Expired',
}

/** An invitation to the organisation, as the admin list shows it. */
export type Invite = {
  id: string
  email: string
  roleKey: string
  roleName: string
  message: string | null
  status: InviteStatus
  invitedBy: { id: string; displayName: string } | null
  sendCount: number
  lastSentAtUtc: string
  expiresAtUtc: string
  acceptedAtUtc: string | null
  cancelledAtUtc: string | null
  createdAtUtc: string
  /** The invitation link, only in the answer of the call that made it (invite, resend): to pass on by hand when mail is queued. */
  link?: string | undefined
}

/** What the public landing `/invite/{token}` shows. */
export type InviteLanding = {
  organisationName: string
  email: string
  roleKey: string
  roleName: string
  message: string | null
  inviterName: string | null
  status: InviteStatus
  /** What the status means for the person holding the link, and what to do. */
  statusDetail: string
  expiresAtUtc: string
}

export const PROJECT_INVITE_STATUSES = ['active', 'used-up', 'cancelled', 'expired'] as const
export type ProjectInviteStatus = (typeof PROJECT_INVITE_STATUSES)[number]

export const PROJECT_INVITE_STATUS_LABELS: Record<ProjectInviteStatus, string> = {
  active: 'Active',
  'used-up': 'Used up',
  cancelled: 'Cancelled',
  expired: 'Expired',
}

export type ProjectInvite = {
  id: string
  projectId: string
  projectTitle: string | null
  email: string | null
  roleKey: string
  roleName: string
  message: string | null
  status: ProjectInviteStatus
  maxUses: number | null
  useCount: number
  hasCode: boolean
  createdBy: { id: string; displayName: string } | null
  expiresAtUtc: string
  cancelledAtUtc: string | null
  createdAtUtc: string
}

/** The answer of creating a project invite: the link and the code are shown this once. */
export type CreatedProjectInvite = { invite: ProjectInvite; token: string; link: string; code: string }

export type ProjectInviteLanding = {
  organisationName: string
  projectTitle: string | null
  roleKey: string
  roleName: string
  message: string | null
  inviterName: string | null
  email: string | null
  status: ProjectInviteStatus
  statusDetail: string
  expiresAtUtc: string
}

export type InviteClaimed = {
  organisationId: string
  organisationName: string
  organisationSlug: string
  roleKey: string
  /** false when the person was already an active member (their role is kept). */
  joined: boolean
}

export type ProjectInviteClaimed = InviteClaimed & { projectId: string; projectTitle: string | null; level: string }

/** Unambiguous letters and digits for typed codes: no 0/O, 1/I/L, U/V. */
export const INVITE_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTWXYZ23456789'
export const INVITE_CODE_LENGTH = 8
export const INVITE_CODE_PATTERN = new RegExp(`^[${INVITE_CODE_ALPHABET}]{${INVITE_CODE_LENGTH}}$`)

/** What a person types (any case, with spaces or dashes) as the stored form: upper case, no separators. */
export function normaliseInviteCode(value: string): string {
  return value.toUpperCase().replace(/[\s\-_.]/g, '')
}

/** XXXX-XXXX, as the code is shown. */
export function formatInviteCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`
}

/** /admin/invites with its filters, for links and redirects after a change. */
export function invitesHref(query: { status: InviteStatus | null; projectId: string | null }): string {
  const params = new URLSearchParams()
  if (query.status) params.set('status', query.status)
  if (query.projectId) params.set('projectId', query.projectId)
  const search = params.toString()
  return `/admin/invites${search ? `?${search}` : ''}`
}

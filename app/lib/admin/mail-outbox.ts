import { isUuid } from '~/lib/schemas/uuid'
/**
 * Administration › Mail outbox (docs/admin/mail.md "The outbox page"): the JSON shapes of
 * `/api/admin/mail-outbox*`, shared by the backend and the screens.
 */

export const MAIL_STATUSES = ['queued', 'sending', 'sent', 'dead', 'cancelled'] as const
export type MailStatus = (typeof MAIL_STATUSES)[number]

export const MAIL_STATUS_LABELS: Record<MailStatus, string> = {
  queued: 'Queued',
  sending: 'Sending',
  sent: 'Sent',
  dead: 'Dead',
  cancelled: 'Cancelled',
}

/** The badge tone of each status (the text carries the meaning, never the colour alone). */
export const MAIL_STATUS_TONES: Record<MailStatus, 'neutral' | 'info' | 'success' | 'critical'> = {
  queued: 'info',
  sending: 'info',
  sent: 'success',
  dead: 'critical',
  cancelled: 'neutral',
}

/** Which messages an admin can send again now, and which cancel. */
export const MAIL_RETRYABLE: readonly MailStatus[] = ['queued', 'dead']
export const MAIL_CANCELLABLE: readonly MailStatus[] = ['queued', 'dead']

/** 50 a page (spec §9). */
export const MAIL_PAGE_SIZE = 50
export const MAIL_PAGE_SIZE_MAX = 200

export type MailMessageSummary = {
  id: string
  to: string
  subject: string
  /** The template key (invite, reset-password, …). */
  template: string
  status: MailStatus
  attempts: number
  lastError: string | null
  createdAtUtc: string
  sentAtUtc: string | null
  /** When a queued message is tried next. */
  nextAttemptAtUtc: string
  lastFailureUtc: string | null
  /** The transport that took (or last tried) it: instance, file or tenant:{id}. */
  transport: string | null
  /** Mail of no organisation (asked from the sign-in page); listed to platform operators only. */
  withoutOrganisation: boolean
}

export type MailMessageDetail = MailMessageSummary & {
  textBody: string
  htmlBody: string | null
  claimedAtUtc: string | null
  cancelledAtUtc: string | null
}

export type MailOutboxPage = { items: MailMessageSummary[]; nextCursor: string | null }

/** spec §3 "Failure tracking", for one transport. */
export type MailTransportHealth = {
  key: string
  kind: 'organisation' | 'instance' | 'file'
  /** E.g. "Your organisation's SMTP server", "This server's SMTP server (SMTP_URL)". */
  label: string
  /** Where it sends, when known, e.g. "SMTP smtp.example.com:587 (STARTTLS)". */
  description: string | null
  /** Whether this organisation's mail goes through it now. */
  inUse: boolean
  failureCount: number
  consecutiveFailures: number
  lastFailureUtc: string | null
  lastSuccessUtc: string | null
  lastError: string | null
}

export type MailTransportsResponse = {
  items: MailTransportHealth[]
  /** No transport takes this organisation's mail: it stays queued until one is configured. */
  noTransport: boolean
}

/** /admin/mail-outbox's URL: its filters and page. */
export type MailOutboxQuery = { status: MailStatus | null; template: string | null; to: string | null; after: string | null }

/** The URL's filters; an unknown status is no filter (a hand-edited link still opens the page). */
export function mailOutboxQuery(url: URL): MailOutboxQuery {
  const status = url.searchParams.get('status')
  const text = (name: string, max: number) => url.searchParams.get(name)?.trim().slice(0, max) || null
  return {
    status: (MAIL_STATUSES as readonly string[]).includes(status ?? '') ? (status as MailStatus) : null,
    template: text('template', 64),
    to: text('to', 254),
    after: url.searchParams.get('after') || null,
  }
}

export function mailOutboxHref(query: Partial<MailOutboxQuery>): string {
  const params = new URLSearchParams()
  if (query.status) params.set('status', query.status)
  if (query.template) params.set('template', query.template)
  if (query.to) params.set('to', query.to)
  if (query.after) params.set('after', query.after)
  const search = params.toString()
  return `/admin/mail-outbox${search ? `?${search}` : ''}`
}

export function isMailMessageId(value: string | undefined): value is string {
  return value !== undefined && isUuid(value)
}

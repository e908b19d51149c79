import { z } from 'zod'

/**
 * Support tickets (docs/admin/support.md): the JSON the API answers and the schemas both the API
 * and the forms check, so a form refuses exactly what the backend would.
 */

export const SUPPORT_STATUSES = ['open', 'pending', 'resolved', 'closed'] as const
export type SupportStatus = (typeof SUPPORT_STATUSES)[number]

export const SUPPORT_STATUS_LABELS: Record<SupportStatus, string> = {
  open: 'Open',
  pending: 'Waiting for you',
  resolved: 'Resolved',
  closed: 'Closed',
}

/** The admin side names `pending` for what it is: waiting for the person who opened the ticket. */
export const SUPPORT_ADMIN_STATUS_LABELS: Record<SupportStatus, string> = {
  open: 'Open',
  pending: 'Pending (waiting for the opener)',
  resolved: 'Resolved',
  closed: 'Closed',
}

export const SUPPORT_SUBJECT_MAX = 200
export const SUPPORT_BODY_MAX = 10_000
export const SUPPORT_ATTACHMENT_MAX_MB = 25
/** What the file inputs offer; the backend decides from the bytes. */
export const SUPPORT_ATTACHMENT_ACCEPT = 'image/*,application/pdf,text/plain,application/zip,.zip,.txt,.log,.pdf'

export type UserRef = { id: string; displayName: string }

export type SupportAttachment = {
  id: string
  ticketId: string
  fileName: string
  contentType: string
  sizeBytes: number
  sha256: string
  uploadedBy: UserRef | null
  createdAtUtc: string
  downloadUrl: string
}

export type SupportMessage = { id: string; author: UserRef | null; fromSupport: boolean; body: string; createdAtUtc: string }

export type SupportTicket = {
  id: string
  number: number
  subject: string
  body: string
  status: SupportStatus
  openedBy: UserRef | null
  assignee: UserRef | null
  messageCount: number
  attachmentCount: number
  createdAtUtc: string
  updatedAtUtc: string
  closedAtUtc: string | null
}

export type SupportTicketDetail = SupportTicket & { messages: SupportMessage[]; attachments: SupportAttachment[] }

export type SupportAssignee = UserRef & { email: string }

const subject = z
  .string({ error: 'Give the ticket a subject.' })
  .trim()
  .min(1, 'Give the ticket a subject.')
  .max(SUPPORT_SUBJECT_MAX, `The subject must be at most ${SUPPORT_SUBJECT_MAX} characters.`)

const body = (what: string) =>
  z
    .string({ error: `Write ${what}.` })
    .trim()
    .min(1, `Write ${what}.`)
    .max(SUPPORT_BODY_MAX, `Keep it to ${SUPPORT_BODY_MAX.toLocaleString('en-GB')} characters.`)

export const NewTicketSchema = z.object({ subject, body: body('what you need help with') })
export const SupportReplySchema = z.object({ body: body('your reply') })

export const TicketChangeSchema = z
  .object({
    status: z.enum(SUPPORT_STATUSES, { error: 'The status is open, pending, resolved or closed.' }).optional(),
    assigneeId: z.uuid({ error: 'Choose an administrator of this organisation, or nobody.' }).nullable().optional(),
  })
  .refine((v) => v.status !== undefined || v.assigneeId !== undefined, { message: 'Change the status or the assignee.', path: ['status'] })

/** The admin screen's status and assignee form: an empty assignee is nobody. */
export const TicketChangeFormSchema = z.object({
  status: z.enum(SUPPORT_STATUSES, { error: 'Choose a status.' }),
  assigneeId: z.preprocess((v) => (v === '' || v === undefined ? null : v), z.uuid({ error: 'Choose an administrator, or nobody.' }).nullable()),
})

/** "12 KB", "3.4 MB". */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

export function statusTone(status: SupportStatus): 'info' | 'warning' | 'success' | 'neutral' {
  return status === 'open' ? 'info' : status === 'pending' ? 'warning' : status === 'resolved' ? 'success' : 'neutral'
}

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
  /** Bumped by every change of its status or assignee (a reply's too): send it back as expectedRevision. */
  revision: number
  createdAtUtc: string
  updatedAtUtc: string
  closedAtUtc: string | null
}

export type SupportTicketDetail = SupportTicket & { messages: SupportMessage[]; attachments: SupportAttachment[] }

export type SupportAssignee = UserRef & { email: string }

/** "12 KB", "3.4 MB". */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

export function statusTone(status: SupportStatus): 'info' | 'warning' | 'success' | 'neutral' {
  return status === 'open' ? 'info' : status === 'pending' ? 'warning' : status === 'resolved' ? 'success' : 'neutral'
}

import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import { noticeFailure, type ReportingActionData } from '~/components/reporting/report-action'
import { fileRefusal, multipartBody } from '~/lib/documents/revision-upload.server'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, replyWithApiError } from '~/lib/forms'
import { SupportReplySchema } from '~/lib/schemas/admin-support'
import type { SupportAttachment, SupportTicketDetail } from './support'
import { isUuid } from '~/lib/schemas/uuid'

/**
 * What the support screens' actions share (docs/admin/support.md "Screens"): files of a form go to
 * the API in one multipart request (the no-script path of the upload; with JavaScript the same
 * form posts the same way), replies, and the redirect with a notice.
 */

/** An action's answer: which form, conform's reply (typed values kept), a page notice, or problems of the file input. */
export type SupportActionData = ReportingActionData & { fileErrors?: string[] | undefined }

export function isTicketId(value: string | undefined): value is string {
  return value !== undefined && isUuid(value)
}

/** The files chosen in the form's `file` input (browsers send an empty part when none is). */
export function filesOf(formData: FormData, name = 'file'): File[] {
  return formData.getAll(name).filter((v): v is File => typeof v !== 'string' && v.size > 0)
}

/** POST /api/support/tickets/{id}/attachments: the files, all or nothing; a refusal as one sentence naming the file(s). */
export async function attachFiles(api: ApiClient, ticketId: string, files: File[]): Promise<{ ok: true; items: SupportAttachment[] } | { ok: false; message: string }> {
  const body = multipartBody(files.map((file) => ['file', file] as const))
  const result = await api.POST('/api/support/tickets/{id}/attachments', { path: { id: ticketId }, body })
  if (result.ok) return { ok: true, items: result.data.items }
  return { ok: false, message: fileRefusal(result.error, files.map((f) => f.name || 'The file').join(', ')) }
}

/** Whose screen: the organisation's administrators (Administration › Support) or the person who wrote in (Settings › Support). */
export type TicketSide = 'admin' | 'user'

/** The ticket of a page: the user side's or the admin side's call; 404 and failures as the error screen. */
export async function loadTicket(api: ApiClient, side: TicketSide, ticketId: string, headers: Headers): Promise<SupportTicketDetail> {
  const path = { id: ticketId }
  const result = side === 'admin' ? await api.GET('/api/admin/support/tickets/{id}', { path }) : await api.GET('/api/support/tickets/{id}', { path })
  if (!result.ok) throw loadError(result.error, headers)
  return result.data
}

/** A reply (intent `reply`) on `messagesPath`; typed text kept on an error. */
export async function replyAction(api: ApiClient, formData: FormData, side: TicketSide, ticketId: string, back: string, headers: Headers) {
  const submission = parseWithZod(formData, { schema: SupportReplySchema })
  if (submission.status !== 'success') return data<SupportActionData>({ intent: 'reply', result: submission.reply() }, { status: 400 })
  const reply = { path: { id: ticketId }, body: submission.value, idempotencyKey: true as const }
  const result = side === 'admin' ? await api.POST('/api/admin/support/tickets/{id}/messages', reply) : await api.POST('/api/support/tickets/{id}/messages', reply)
  if (!result.ok) {
    if (result.error.status === 404) throw loadError(result.error, headers)
    return data<SupportActionData>({ intent: 'reply', result: replyWithApiError(submission, result.error) }, { status: failureStatus(result.error), headers })
  }
  await setFlash(headers, { tone: 'success', message: 'Reply sent.' })
  throw redirect(back, { headers })
}

/** Files added to a ticket (intent `attach`); a refusal next to the file input. */
export async function attachAction(api: ApiClient, formData: FormData, ticketId: string, back: string, headers: Headers) {
  const files = filesOf(formData)
  if (files.length === 0) return data<SupportActionData>({ intent: 'attach', fileErrors: ['Choose a file to attach.'] }, { status: 400 })
  const attached = await attachFiles(api, ticketId, files)
  if (!attached.ok) return data<SupportActionData>({ intent: 'attach', fileErrors: [attached.message] }, { status: 400, headers })
  await setFlash(headers, { tone: 'success', message: attached.items.length === 1 ? `${attached.items[0]?.fileName} attached.` : `${attached.items.length} files attached.` })
  throw redirect(back, { headers })
}

export { noticeFailure }

import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import { NewTicketSchema } from '~/lib/schemas/admin-support'
import { attachFiles, filesOf, type SupportActionData } from '~/lib/admin/support.server'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, replyWithApiError } from '~/lib/forms'

/** Settings › Support: the user's tickets (50 a page, `after` in the URL) and "New ticket". */

export const MY_TICKETS_PAGE = 50

export function myTicketsQuery(url: URL): { after: string | undefined } {
  const after = url.searchParams.get('after')?.trim()
  return { after: after && after.length <= 200 ? after : undefined }
}

export async function loadMyTickets(api: ApiClient, query: { after: string | undefined }, headers: Headers) {
  const params = new URLSearchParams({ limit: String(MY_TICKETS_PAGE) })
  if (query.after) params.set('after', query.after)
  const result = await api.GET('/api/support/tickets', { query: params })
  if (!result.ok) throw loadError(result.error, headers)
  return result.data
}

/**
 * "Open ticket": the ticket first (its fields' problems come back with what was typed), then its
 * files in one multipart request. A refused file does not undo the ticket: the ticket's page opens
 * and says which file was not attached and why, where it can be attached again.
 */
export async function openTicketAction(api: ApiClient, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: NewTicketSchema })
  if (submission.status !== 'success') return data<SupportActionData>({ intent: 'open', result: submission.reply() }, { status: 400 })
  const files = filesOf(formData)
  const result = await api.POST('/api/support/tickets', { body: submission.value, idempotencyKey: true })
  if (!result.ok) {
    return data<SupportActionData>({ intent: 'open', result: replyWithApiError(submission, result.error) }, { status: failureStatus(result.error), headers })
  }
  const ticket = result.data
  const back = `/settings/support/${ticket.id}`
  if (files.length > 0) {
    const attached = await attachFiles(api, ticket.id, files)
    if (!attached.ok) {
      await setFlash(headers, { tone: 'warning', message: `Ticket #${ticket.number} is open, but a file was not attached. ${attached.message}` })
      throw redirect(back, { headers })
    }
  }
  await setFlash(headers, { tone: 'success', message: `Ticket #${ticket.number} is open. We will answer here and by e-mail.` })
  throw redirect(back, { headers })
}

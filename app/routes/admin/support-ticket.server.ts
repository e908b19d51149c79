import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import { conflictRevision } from '~/components/reporting/report-action'
import { revisionFromForm } from '~/lib/schemas/edit-conflict'
import { SUPPORT_ADMIN_STATUS_LABELS, type SupportAssignee } from '~/lib/admin/support'
import { TicketChangeFormSchema } from '~/lib/schemas/admin-support'
import type { SupportActionData } from '~/lib/admin/support.server'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, replyWithApiError } from '~/lib/forms'

/** /admin/support/{id}: whom it may be assigned to, and the status and assignee form. */

export async function loadAssignees(api: ApiClient): Promise<SupportAssignee[]> {
  const result = await api.GET('/api/admin/support/assignees')
  return result.ok ? result.data.items : []
}

export async function changeAction(api: ApiClient, formData: FormData, ticketId: string, headers: Headers) {
  const submission = parseWithZod(formData, { schema: TicketChangeFormSchema })
  if (submission.status !== 'success') return data<SupportActionData>({ intent: 'change', result: submission.reply() }, { status: 400 })
  // Saved against the ticket as the page showed it: a change by another administrator (or a reply) since is a conflict, the choices kept.
  const body = { ...submission.value, expectedRevision: revisionFromForm(formData.get('expectedRevision')) }
  const result = await api.PATCH('/api/admin/support/tickets/{id}', { path: { id: ticketId }, body })
  if (!result.ok) {
    if (result.error.status === 404) throw loadError(result.error, headers)
    const reply = { intent: 'change', result: replyWithApiError(submission, result.error), revision: conflictRevision(result.error) }
    return data<SupportActionData>(reply, { status: failureStatus(result.error), headers })
  }
  const ticket = result.data
  await setFlash(headers, {
    tone: 'success',
    message: `Ticket #${ticket.number} saved: ${SUPPORT_ADMIN_STATUS_LABELS[ticket.status].toLowerCase()}, ${ticket.assignee ? `assigned to ${ticket.assignee.displayName}` : 'unassigned'}.`,
  })
  throw redirect(`/admin/support/${ticket.id}`, { headers })
}

import { redirect } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import { noticeFailure } from '~/components/reporting/report-action'
import type { MailMessageDetail } from '~/lib/admin/mail-outbox'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'

/** /admin/mail-outbox/{id}: one message, and its two actions (send again now, cancel). */

/** The message, and its template's name as Email templates shows it ("Invitation"; the key only where no name is known). */
export async function loadMailMessage(api: ApiClient, id: string, headers: Headers): Promise<{ message: MailMessageDetail; templateName: string }> {
  const [result, templateList] = await Promise.all([api.GET('/api/admin/mail-outbox/{id}', { path: { id } }), api.GET('/api/admin/email-templates')])
  if (!result.ok) throw loadError(result.error, headers)
  const title = templateList.ok ? templateList.data.items.find((t) => t.key === result.data.template)?.title : undefined
  return { message: result.data, templateName: title ?? result.data.template }
}

export async function changeMailMessage(api: ApiClient, id: string, intent: 'retry' | 'cancel', headers: Headers) {
  const result = intent === 'retry' ? await api.POST('/api/admin/mail-outbox/{id}/retry', { path: { id } }) : await api.POST('/api/admin/mail-outbox/{id}/cancel', { path: { id } })
  if (!result.ok) {
    if (result.error.status === 404) throw loadError(result.error, headers)
    return noticeFailure(intent, result.error, headers, id)
  }
  const to = result.data.to
  await setFlash(headers, {
    tone: 'success',
    message: intent === 'retry' ? `The message to ${to} is queued and goes out at the next delivery pass.` : `The message to ${to} is cancelled: it will not be sent.`,
  })
  throw redirect(`/admin/mail-outbox/${id}`, { headers })
}

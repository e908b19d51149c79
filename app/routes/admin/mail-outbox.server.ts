import { redirect } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import { mailOutboxHref, type MailOutboxQuery } from '~/lib/admin/mail-outbox'
import type { ApiClient } from '~/lib/api/types'

/** /admin/mail-outbox: a page of the organisation's mail and the health of its transports. */

export async function loadMailOutbox(api: ApiClient, query: MailOutboxQuery, headers: Headers) {
  const params = new URLSearchParams()
  if (query.status) params.set('status', query.status)
  if (query.template) params.set('template', query.template)
  if (query.to) params.set('to', query.to)
  if (query.after) params.set('after', query.after)
  const [list, transports, templateList] = await Promise.all([
    api.GET('/api/admin/mail-outbox', { query: params }),
    api.GET('/api/admin/mail-outbox/transports'),
    api.GET('/api/admin/email-templates'),
  ])
  // A stale cursor (400) starts again from the first page rather than failing the screen.
  if (!list.ok && list.error.status === 400 && query.after) throw redirect(mailOutboxHref({ ...query, after: null }), { headers })
  if (!list.ok) throw loadError(list.error, headers)
  // A template's name as Email templates shows it ("Invitation"), not its key; the key where none is known.
  const titles: Record<string, string> = templateList.ok ? Object.fromEntries(templateList.data.items.map((t) => [t.key, t.title])) : {}
  return {
    messages: list.data.items,
    nextCursor: list.data.nextCursor,
    templates: list.data.templates,
    templateTitles: titles,
    transports: transports.ok ? transports.data : null,
  }
}

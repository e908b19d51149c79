import { data, Link, useActionData } from 'react-router'
import { AttachForm, ReplyForm } from '~/components/admin/support-forms'
import { SupportStatusBadge, SupportThread } from '~/components/admin/support-thread'
import { Card } from '~/components/ui/card'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { attachAction, isTicketId, loadTicket, replyAction, type SupportActionData } from '~/lib/admin/support.server'
import { createServerApi } from '~/lib/api.server'
import { useLocale } from '~/root'
import type { Route } from './+types/support-ticket'

/**
 * Settings › Support › one ticket (docs/admin/support.md "Screens"): the thread, a reply, and
 * files to attach. Only the person who opened it sees it here (another's id is the 404 screen).
 */
function ticketId(params: { ticketId?: string }): string {
  if (!isTicketId(params.ticketId)) throw data(null, { status: 404, statusText: 'Not found' })
  return params.ticketId
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const id = ticketId(params)
  const { api, responseHeaders } = createServerApi(request, context)
  const ticket = await loadTicket(api, 'user', id, responseHeaders)
  return data({ ticket }, { headers: responseHeaders })
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const id = ticketId(params)
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const back = `/settings/support/${id}`
  switch (String(formData.get('intent') ?? '')) {
    case 'reply':
      return replyAction(api, formData, 'user', id, back, responseHeaders)
    case 'attach':
      return attachAction(api, formData, id, back, responseHeaders)
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

export default function SupportTicketSettings({ loaderData }: Route.ComponentProps) {
  const { ticket } = loaderData
  const actionData = useActionData<typeof action>() as SupportActionData | undefined
  const locale = useLocale()
  useLiveRevalidation((change) => change.entityType === 'SupportTicket' && change.entityId === ticket.id)
  const closed = ticket.status === 'closed'
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-2">
        <Link to="/settings/support" className="text-sm text-primary-strong underline underline-offset-2">
          All your tickets
        </Link>
        <h2 className="text-xl font-semibold break-words">
          #{ticket.number} {ticket.subject}
        </h2>
        <p className="flex flex-wrap items-center gap-2 text-sm text-muted">
          <SupportStatusBadge status={ticket.status} />
          {ticket.assignee ? <span>Handled by {ticket.assignee.displayName}</span> : <span>Not picked up yet</span>}
        </p>
      </div>
      <div className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <SupportThread ticket={ticket} locale={locale} viewer="user" />
        <div className="flex flex-col gap-6">
          <Card className="p-5">
            <h2 className="mb-4 text-lg font-semibold">Reply</h2>
            <ReplyForm
              lastResult={actionData?.intent === 'reply' ? actionData.result : undefined}
              label="Your reply"
              disabledReason={closed ? 'This ticket is closed. Open a new ticket if you still need help.' : undefined}
            />
          </Card>
          {closed ? null : (
            <Card className="p-5">
              <h2 className="mb-4 text-lg font-semibold">Add files</h2>
              <AttachForm fileErrors={actionData?.intent === 'attach' ? actionData.fileErrors : undefined} />
            </Card>
          )}
        </div>
      </div>
    </div>
  )
}

export function meta({ data: loaded }: Route.MetaArgs) {
  return [{ title: loaded ? `#${loaded.ticket.number} ${loaded.ticket.subject} · Support · Site Portal` : 'Support ticket · Site Portal' }]
}

import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import { data, Link, useActionData } from 'react-router'
import { AttachForm, ReplyForm, TicketChangeForm } from '~/components/admin/support-forms'
import { revisionFor } from '~/components/reporting/report-action'
import { SupportStatusBadge, SupportThread } from '~/components/admin/support-thread'
import { Card } from '~/components/ui/card'
import { PageHeader } from '~/components/ui/page-header'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { SUPPORT_ADMIN_STATUS_LABELS } from '~/lib/admin/support'
import { attachAction, isTicketId, loadTicket, replyAction, type SupportActionData } from '~/lib/admin/support.server'
import { createServerApi } from '~/lib/api.server'
import { formatDateTime } from '~/lib/format'
import { useLocale } from '~/root'
import type { Route } from './+types/support-ticket'
import { changeAction, loadAssignees } from './support-ticket.server'

/**
 * Administration › Support › one ticket (docs/admin/support.md "Screens"): the thread, a reply
 * (mailed to the opener), files, and the status and assignee. Administrators only.
 */
function ticketId(params: { ticketId?: string }): string {
  if (!isTicketId(params.ticketId)) throw data(null, { status: 404, statusText: 'Not found' })
  return params.ticketId
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const id = ticketId(params)
  const { api, responseHeaders } = createServerApi(request, context)
  const [ticket, assignees] = await Promise.all([loadTicket(api, 'admin', id, responseHeaders), loadAssignees(api)])
  return data({ ticket, assignees }, { headers: responseHeaders })
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const id = ticketId(params)
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const back = `/admin/support/${id}`
  switch (String(formData.get('intent') ?? '')) {
    case 'reply':
      return replyAction(api, formData, 'admin', id, back, responseHeaders)
    case 'attach':
      return attachAction(api, formData, id, back, responseHeaders)
    case 'change':
      return changeAction(api, formData, id, responseHeaders)
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

export default function AdminSupportTicket({ loaderData }: Route.ComponentProps) {
  const { ticket, assignees } = loaderData
  const actionData = useActionData<typeof action>() as SupportActionData | undefined
  const locale = useLocale()
  useLiveRevalidation((change) => change.entityType === 'SupportTicket' && change.entityId === ticket.id)
  const closed = ticket.status === 'closed'
  return (
    <>
      <PageHeader
        title={`#${ticket.number} ${ticket.subject}`}
        description={`Opened by ${ticket.openedBy?.displayName ?? 'a former member'} on ${formatDateTime(ticket.createdAtUtc, locale)}.`}
        actions={
          <Link to="/admin/support" className="text-sm text-primary-strong underline underline-offset-2">
            All tickets
          </Link>
        }
      />
      <p className="mb-6 flex flex-wrap items-center gap-2 text-sm text-muted">
        <SupportStatusBadge status={ticket.status} labels={SUPPORT_ADMIN_STATUS_LABELS} />
        <span>{ticket.assignee ? `Assigned to ${ticket.assignee.displayName}` : 'Nobody is assigned'}</span>
      </p>
      <div className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <SupportThread ticket={ticket} locale={locale} viewer="admin" />
        <div className="flex flex-col gap-6">
          <Card className="p-5">
            <h2 className="mb-4 text-lg font-semibold">Reply</h2>
            <ReplyForm
              lastResult={actionData?.intent === 'reply' ? actionData.result : undefined}
              label="Reply to the person who opened the ticket"
              disabledReason={closed ? 'This ticket is closed. Reopen it (status) to reply.' : undefined}
            />
          </Card>
          <Card className="p-5">
            <h2 className="mb-4 text-lg font-semibold">Status and assignee</h2>
            <TicketChangeForm
              key={`${ticket.status}-${ticket.assignee?.id ?? ''}`}
              lastResult={actionData?.intent === 'change' ? actionData.result : undefined}
              revision={revisionFor(actionData, 'change', undefined, ticket.revision)}
              status={ticket.status}
              assigneeId={ticket.assignee?.id ?? null}
              assignees={assignees}
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
    </>
  )
}

export function meta({ data: loaded }: Route.MetaArgs) {
  return [{ title: loaded ? `#${loaded.ticket.number} ${loaded.ticket.subject} · Support · Site Portal` : 'Support ticket · Site Portal' }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict

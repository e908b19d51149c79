import { data, useActionData } from 'react-router'
import { NewTicketForm } from '~/components/admin/support-forms'
import { SupportTicketList } from '~/components/admin/support-ticket-list'
import { Card } from '~/components/ui/card'
import { EmptyState } from '~/components/ui/empty-state'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import type { SupportActionData } from '~/lib/admin/support.server'
import { createServerApi } from '~/lib/api.server'
import { useLocale } from '~/root'
import type { Route } from './+types/support'
import { loadMyTickets, myTicketsQuery, openTicketAction } from './support.server'

/**
 * Settings › Support (docs/admin/support.md "Screens"): the tickets you opened, newest first, and
 * "New ticket" with a subject, what is wrong and files. Any active member, read-only too.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const query = myTicketsQuery(new URL(request.url))
  const { api, responseHeaders } = createServerApi(request, context)
  const page = await loadMyTickets(api, query, responseHeaders)
  return data({ query, ...page }, { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  if (String(formData.get('intent') ?? '') !== 'open') throw data('Unknown intent', { status: 400 })
  return openTicketAction(api, formData, responseHeaders)
}

export default function SupportSettings({ loaderData }: Route.ComponentProps) {
  const { items, nextCursor, query } = loaderData
  const actionData = useActionData<typeof action>() as SupportActionData | undefined
  const locale = useLocale()
  useLiveRevalidation((change) => change.entityType === 'SupportTicket')
  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
      <section aria-labelledby="my-tickets-heading" className="min-w-0">
        <h2 id="my-tickets-heading" className="mb-4 text-lg font-semibold">
          Your support tickets
        </h2>
        <SupportTicketList
          tickets={items}
          locale={locale}
          side="user"
          caption="Your support tickets, newest first"
          emptyState={
            <EmptyState heading="No tickets yet" headingLevel={3}>
              When something does not work, open a ticket: your organisation’s administrators answer here and by e-mail.
            </EmptyState>
          }
          pagination={{ previous: query.after ? { after: null } : null, next: nextCursor ? { after: nextCursor } : null, label: 'Ticket pages' }}
        />
      </section>
      <Card className="p-5">
        <h2 className="mb-4 text-lg font-semibold">New ticket</h2>
        <NewTicketForm lastResult={actionData?.intent === 'open' ? actionData.result : undefined} fileErrors={actionData?.intent === 'open' ? actionData.fileErrors : undefined} />
      </Card>
    </div>
  )
}

export function meta() {
  return [{ title: 'Support · Settings · Site Portal' }]
}

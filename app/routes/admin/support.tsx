import { data, Form, Link } from 'react-router'
import { SupportTicketList } from '~/components/admin/support-ticket-list'
import { Button } from '~/components/ui/button'
import { EmptyState } from '~/components/ui/empty-state'
import { Field } from '~/components/ui/field'
import { PageHeader } from '~/components/ui/page-header'
import { SelectField } from '~/components/ui/select-field'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { SUPPORT_ADMIN_STATUS_LABELS, SUPPORT_STATUSES } from '~/lib/admin/support'
import { createServerApi } from '~/lib/api.server'
import { useLocale } from '~/root'
import type { Route } from './+types/support'
import { adminTicketsQuery, loadAdminTickets } from './support.server'

/**
 * Administration › Support (docs/admin/support.md "Screens"): the organisation's support tickets,
 * newest first, 50 a page, filtered by status, assignee and a search, all in the URL (a plain GET
 * form, so it works without JavaScript). Administrators only: anyone else gets the 403 screen.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const query = adminTicketsQuery(new URL(request.url))
  const { api, responseHeaders } = createServerApi(request, context)
  const page = await loadAdminTickets(api, query, responseHeaders)
  return data({ query, ...page }, { headers: responseHeaders })
}

export default function AdminSupport({ loaderData }: Route.ComponentProps) {
  const { query, tickets, nextCursor, assignees } = loaderData
  const locale = useLocale()
  useLiveRevalidation((change) => change.entityType === 'SupportTicket')
  const filtered = query.status !== null || query.assigneeId !== null || query.q !== ''
  return (
    <>
      <PageHeader title="Support tickets" description="What members of the organisation asked for help with, from Settings › Support." />
      <Form method="get" role="search" aria-label="Filter tickets" className="mb-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-[repeat(3,minmax(0,1fr))_auto] lg:items-end">
        <SelectField
          label="Status"
          selectProps={{ name: 'status', id: 'filter-status', defaultValue: query.status ?? '' }}
          options={[{ value: '', label: 'Any status' }, ...SUPPORT_STATUSES.map((value) => ({ value, label: SUPPORT_ADMIN_STATUS_LABELS[value] }))]}
        />
        <SelectField
          label="Assignee"
          selectProps={{ name: 'assigneeId', id: 'filter-assignee', defaultValue: query.assigneeId ?? '' }}
          options={[{ value: '', label: 'Anyone' }, { value: 'none', label: 'Nobody (unassigned)' }, ...assignees.map((a) => ({ value: a.id, label: a.displayName }))]}
        />
        <Field label="Search" inputProps={{ name: 'q', id: 'filter-q', type: 'search', defaultValue: query.q, placeholder: 'Subject, text or #number', maxLength: 200 }} />
        <div className="flex items-center gap-3">
          <Button type="submit" variant="secondary">
            Filter
          </Button>
          {filtered ? (
            <Link to="/admin/support" className="text-sm text-primary-strong underline underline-offset-2">
              Clear
            </Link>
          ) : null}
        </div>
      </Form>
      <SupportTicketList
        tickets={tickets}
        locale={locale}
        side="admin"
        caption="Support tickets, newest first"
        emptyState={
          <EmptyState heading={filtered ? 'No ticket matches these filters' : 'No support tickets yet'}>
            {filtered ? 'Change or clear the filters to see more.' : 'Members open tickets from Settings › Support; they show up here.'}
          </EmptyState>
        }
        pagination={{ previous: query.after ? { after: null } : null, next: nextCursor ? { after: nextCursor } : null, label: 'Ticket pages' }}
      />
    </>
  )
}

export function meta() {
  return [{ title: 'Support tickets · Administration · Site Portal' }]
}

import { data, Link, useActionData, useLocation } from 'react-router'
import { UsersFilterForm } from '~/components/admin/users-filter'
import { UserStatusBadge } from '~/components/admin/users-status'
import { type ReportingActionData, resultFor } from '~/components/reporting/report-action'
import { cursorPagination } from '~/components/reporting/report-paging'
import { Banner } from '~/components/ui/banner'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { type AdminUser, roleName } from '~/lib/admin/users'
import { createServerApi } from '~/lib/api.server'
import type { Route } from './+types/users'
import { addMember, loadUsersPage } from './users.server'
import { deferred, partsBeforeNavigation } from '~/components/ui/deferred'

// The forms hydrate after the rest of the screen (app/components/ui/deferred.tsx), so the form
// library is not in the screen's first load.
const loadAddMemberForm = async () => (await import('~/components/admin/users-forms')).AddMemberForm
const AddMemberForm = deferred(loadAddMemberForm, import.meta.env.SSR ? await loadAddMemberForm() : undefined)
await partsBeforeNavigation(AddMemberForm)

/**
 * Administration › Users (spec §2, §3 "Admin user"; docs/admin/users.md): the organisation's
 * members, 50 a page, by name; search, role and status filters in the URL; and "Add member" for
 * a person who already has an account. Each name opens the member's page.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const page = await loadUsersPage(api, new URL(request.url))
  return data(page, { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  switch (String(formData.get('intent') ?? '')) {
    case 'add-member':
      return addMember(api, formData, responseHeaders)
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

const columns: Array<DataTableColumn<AdminUser>> = [
  {
    key: 'name',
    header: 'Name',
    rowHeader: true,
    cell: (user) => (
      <Link to={`/admin/users/${encodeURIComponent(user.id)}`} className="text-primary-strong underline underline-offset-2">
        {user.displayName}
      </Link>
    ),
  },
  { key: 'email', header: 'E-mail', cell: (user) => <span className="break-all">{user.email}</span> },
  { key: 'role', header: 'Role', cell: (user) => <span className="whitespace-nowrap">{roleName(user.memberships[0]?.roleKey ?? '')}</span> },
  { key: 'status', header: 'Status', cell: (user) => <UserStatusBadge status={user.status} /> },
  { key: 'position', header: 'Position', hideOnMobile: true, cell: (user) => user.position ?? '—' },
]

export default function Users({ loaderData }: Route.ComponentProps) {
  useLiveRevalidation((change) => change.entityType === 'User' || change.entityType === 'Membership')
  const { filter, position, page, organisation, loadNotice } = loaderData
  const actionData = useActionData<typeof action>() as ReportingActionData | undefined
  const location = useLocation()
  const notice = actionData?.notice ?? loadNotice
  const filtered = filter.q !== '' || filter.role !== '' || filter.status !== ''
  return (
    <>
      <PageHeader
        title="Users"
        description="The members of your organisation: their role, their status, and their account."
        actions={
          organisation ? (
            <a href="#add-member" className="text-sm text-primary-strong underline underline-offset-2">
              Add member
            </a>
          ) : undefined
        }
      />
      {notice ? (
        <Banner tone="critical" title="That did not work" correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      <div className="grid gap-8 lg:grid-cols-[minmax(0,3fr)_minmax(0,1fr)]">
        <div className="flex min-w-0 flex-col gap-4">
          <UsersFilterForm key={location.search} filter={filter} />
          {page ? (
            <DataTable
              caption="Members"
              columns={columns}
              rows={page.items}
              rowKey={(user) => user.id}
              pagination={cursorPagination(position, page.nextCursor, 'Members pages')}
              emptyState={
                filtered ? (
                  <EmptyState heading="No members match">Try another search, or clear the filters.</EmptyState>
                ) : (
                  <EmptyState heading="No members yet">Add a person with an account, or invite someone new.</EmptyState>
                )
              }
            />
          ) : null}
        </div>
        {organisation ? (
          <Section title="Add member" description={`Adds a person who already has a Site Portal account to ${organisation.name}.`}>
            <div id="add-member" className="scroll-mt-4">
              <AddMemberForm key={location.key} organisationId={organisation.id} lastResult={resultFor(actionData, 'add-member')} />
            </div>
          </Section>
        ) : null}
      </div>
    </>
  )
}

export function meta() {
  return [{ title: 'Users · Administration · Site Portal' }]
}

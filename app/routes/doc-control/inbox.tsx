import { data, NavLink, useActionData, useLocation } from 'react-router'
import { InboxList } from '~/components/doc-control/inbox-list'
import { inboxChanged } from '~/components/doc-control/workflow-live'
import { numberedPagination } from '~/components/doc-control/workflow-paging'
import { Banner } from '~/components/ui/banner'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { Pagination } from '~/components/ui/pagination'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { createServerApi } from '~/lib/api.server'
import { useLocale } from '~/root'
import type { Route } from './+types/inbox'
import { actOnTask, type InboxKind, loadInboxPage } from './inbox.server'
import type { WorkflowActionData } from './workflow.server'

/**
 * Inbox (spec §2 `/doc-control/inbox`): the review tasks waiting for me and the transmittals sent
 * to me, newest first, a page at a time, of every project. A task is answered right here (approve
 * or reject, plain forms that work without JavaScript) or on its review's page.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const page = await loadInboxPage(api, new URL(request.url))
  return data(page, { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  return actOnTask(api, formData, new URL(request.url), responseHeaders)
}

const KINDS: Array<{ kind: InboxKind; label: string }> = [
  { kind: 'all', label: 'Everything' },
  { kind: 'tasks', label: 'Review tasks' },
  { kind: 'transmittals', label: 'Transmittals' },
]

export default function Inbox({ loaderData }: Route.ComponentProps) {
  const { query, inbox, reviews, notice: loadNotice } = loaderData
  useLiveRevalidation(inboxChanged)
  const actionData = useActionData<typeof action>() as WorkflowActionData | undefined
  const locale = useLocale()
  const { search } = useLocation()
  const notice = actionData?.notice ?? loadNotice
  const hrefOf = (kind: InboxKind) => {
    const params = new URLSearchParams(search)
    params.delete('page')
    if (kind === 'all') params.delete('kind')
    else params.set('kind', kind)
    const query = params.toString()
    return `/doc-control/inbox${query ? `?${query}` : ''}`
  }
  return (
    <>
      <PageHeader title="Inbox" description="Reviews waiting for your answer and transmittals sent to you, newest first, from every project." />
      {notice ? (
        <Banner tone="critical" title={actionData?.allowed ? 'Not possible now' : 'That did not work'} correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      <nav aria-label="Show" className="mb-4">
        <ul className="flex flex-wrap gap-2">
          {KINDS.map(({ kind, label }) => (
            <li key={kind}>
              <NavLink
                to={hrefOf(kind)}
                aria-current={query.kind === kind ? 'page' : undefined}
                className={`inline-flex min-h-9 items-center rounded-full border px-3 text-sm ${query.kind === kind ? 'border-primary bg-primary/10 font-medium text-primary-strong' : 'border-border text-text hover:bg-surface-muted'}`}
              >
                {label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      {inbox ? (
        inbox.items.length > 0 ? (
          <>
            <InboxList
              entries={inbox.items}
              reviews={reviews}
              answer={actionData?.targetId ? { intent: actionData.intent, workflowId: actionData.targetId, result: actionData.result } : undefined}
              locale={locale}
            />
            <Pagination {...numberedPagination(inbox, 'Inbox pages')} />
          </>
        ) : (
          <EmptyState heading={emptyHeading(query.kind)}>New review tasks and transmittals sent to you show here, newest first.</EmptyState>
        )
      ) : null}
    </>
  )
}

function emptyHeading(kind: InboxKind): string {
  if (kind === 'tasks') return 'No review tasks for you.'
  if (kind === 'transmittals') return 'No transmittals sent to you.'
  return 'Nothing in your inbox.'
}

export function meta() {
  return [{ title: 'Inbox · Document control · Site Portal' }]
}

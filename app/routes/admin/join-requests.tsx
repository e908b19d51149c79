import { data, Link, useActionData } from 'react-router'
import { JoinRequestHistory } from '~/components/admin/join-request-history'
import { resultFor, type ReportingActionData } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { cx } from '~/components/ui/class-names'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { Pagination } from '~/components/ui/pagination'
import { Section } from '~/components/ui/section'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { JOIN_REQUEST_FILTERS, joinRequestsHref, joinRequestsQuery, STATUS_LABELS } from '~/lib/admin/join-requests'
import { createServerApi } from '~/lib/api.server'
import { useLocale } from '~/root'
import type { Route } from './+types/join-requests'
import { approveJoinRequest, declineJoinRequest, loadJoinRequestsPage, unknownIntent } from './join-requests.server'
import { deferred, partsBeforeNavigation } from '~/components/ui/deferred'

// The forms hydrate after the rest of the screen (app/components/ui/deferred.tsx), so the form
// library is not in the screen's first load.
const loadJoinRequestCard = async () => (await import('~/components/admin/join-request-card')).JoinRequestCard
const JoinRequestCard = deferred(loadJoinRequestCard, import.meta.env.SSR ? await loadJoinRequestCard() : undefined)
await partsBeforeNavigation(JoinRequestCard)

/**
 * Administration › Join requests (issue 13, docs/admin/join-requests-and-devices.md): people who
 * asked to join the organisation (on /join, by its address). Pending ones are approved with a
 * role or declined with a reason; `?status=` shows the history. The person is told by e-mail.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const query = joinRequestsQuery(new URL(request.url))
  const { api, responseHeaders } = createServerApi(request, context)
  const page = await loadJoinRequestsPage(api, query, responseHeaders)
  return data({ query, ...page }, { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const query = joinRequestsQuery(new URL(request.url))
  switch (String(formData.get('intent') ?? '')) {
    case 'approve':
      return approveJoinRequest(api, formData, query, responseHeaders)
    case 'decline':
      return declineJoinRequest(api, formData, query, responseHeaders)
    default:
      return unknownIntent()
  }
}

export default function JoinRequests({ loaderData }: Route.ComponentProps) {
  const { query, items, nextCursor } = loaderData
  const actionData = useActionData<typeof action>() as ReportingActionData | undefined
  const locale = useLocale()
  useLiveRevalidation((change) => change.entityType === 'JoinRequest')
  const notice = actionData?.notice
  const pending = query.status === 'pending'
  const pagination = { previous: query.after ? { after: null } : null, next: nextCursor ? { after: nextCursor } : null, label: 'Join request pages' }
  return (
    <>
      <PageHeader
        title="Join requests"
        description="People who asked to join your organisation by its address. Approve them with a role, or decline with a reason they will read."
      />
      {notice ? (
        <Banner tone="critical" title="That did not work" correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      <nav aria-label="Show requests" className="mb-6 flex flex-wrap gap-2">
        {JOIN_REQUEST_FILTERS.map((status) => {
          const current = status === query.status
          return (
            <Link
              key={status}
              to={joinRequestsHref({ status })}
              aria-current={current ? 'page' : undefined}
              className={cx(
                'inline-flex min-h-9 items-center rounded-full border px-3 text-sm font-medium',
                current ? 'border-primary bg-primary text-white' : 'border-border text-text hover:bg-surface-muted',
              )}
            >
              {STATUS_LABELS[status]}
            </Link>
          )
        })}
      </nav>
      {pending ? (
        <Section title="Waiting for an answer" description="Newest first.">
          {items.length === 0 ? (
            <EmptyState headingLevel={3} heading="No one is waiting">
              When someone asks to join on the Join page with your organisation’s address, their request appears here and administrators get an e-mail.
            </EmptyState>
          ) : (
            <div className="flex flex-col gap-4">
              {items.map((request) => (
                <JoinRequestCard
                  key={request.id}
                  request={request}
                  locale={locale}
                  approveResult={resultFor(actionData, 'approve', request.id)}
                  declineResult={resultFor(actionData, 'decline', request.id)}
                />
              ))}
              <Pagination {...pagination} />
            </div>
          )}
        </Section>
      ) : (
        <Section title={`${STATUS_LABELS[query.status]} requests`} description="Newest first.">
          <JoinRequestHistory
            requests={items}
            locale={locale}
            caption={`${STATUS_LABELS[query.status]} join requests`}
            pagination={pagination}
            emptyState={
              <EmptyState headingLevel={3} heading="Nothing here">
                No join requests {query.status === 'all' ? 'yet' : `are ${STATUS_LABELS[query.status].toLowerCase()}`}.
              </EmptyState>
            }
          />
        </Section>
      )}
    </>
  )
}

export function meta() {
  return [{ title: 'Join requests · Site Portal' }]
}

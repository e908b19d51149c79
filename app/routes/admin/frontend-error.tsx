import { data, Link } from 'react-router'
import { FrontendErrorOccurrenceCard, FrontendErrorStack } from '~/components/admin/frontend-errors-stack'
import { Card } from '~/components/ui/card'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { Pagination } from '~/components/ui/pagination'
import { Section } from '~/components/ui/section'
import { frontendErrorsHref, isFingerprint } from '~/lib/admin/frontend-errors'
import { createServerApi } from '~/lib/api.server'
import { MESSAGES } from '~/lib/api/messages'
import { formatDateTime, formatNumber } from '~/lib/format'
import { useLocale } from '~/root'
import type { Route } from './+types/frontend-error'
import { loadFrontendError } from './frontend-error.server'

/**
 * Administration › Frontend errors › one error (issue 15): what it says, how often and for whom,
 * the latest stack mapped back to the source, and every occurrence (paged) with its own stack.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  if (!isFingerprint(params.fingerprint)) throw data(null, { status: 404, statusText: MESSAGES.notFound })
  const { api, responseHeaders } = createServerApi(request, context)
  const page = new URL(request.url).searchParams.get('page')
  const detail = await loadFrontendError(api, params.fingerprint, request, responseHeaders)
  return data({ detail, page: Number(page) > 1 ? Number(page) : 1 }, { headers: responseHeaders })
}

export default function FrontendError({ loaderData }: Route.ComponentProps) {
  const { detail, page } = loaderData
  const { group, affectedUsers, occurrences } = detail
  const locale = useLocale()
  const latest = occurrences.items[0]
  return (
    <>
      <p className="mb-2 text-sm">
        <Link to={frontendErrorsHref({})} className="text-primary-strong underline underline-offset-2">
          <span aria-hidden="true">← </span>Frontend errors
        </Link>
      </p>
      <PageHeader title={group.message || '(no message)'} description={`Caught by ${group.name}.`} />
      <div className="flex flex-col gap-10">
        <Card className="p-5">
          <dl className="grid grid-cols-2 gap-x-6 gap-y-3 text-sm sm:grid-cols-4">
            <Figure label="Times" value={formatNumber(group.count, locale)} />
            <Figure label="People" value={formatNumber(group.users, locale)} />
            <Figure label="Visitors" value={formatNumber(group.visitors, locale)} />
            <Figure label="Last release" value={group.lastRelease ?? '—'} mono />
            <Figure label="First seen" value={formatDateTime(group.firstSeenUtc, locale)} />
            <Figure label="Last seen" value={formatDateTime(group.lastSeenUtc, locale)} />
            <Figure label="Last page" value={group.lastPath ?? '—'} mono />
          </dl>
        </Card>
        {latest && page === 1 ? (
          <Section title="Stack" description="The latest occurrence, mapped back to the source where the build’s source map knew it.">
            <FrontendErrorStack frames={latest.frames} raw={latest.stack} />
          </Section>
        ) : null}
        <Section title="Affected people" description="People named in the reports (Settings › Admin can leave them unnamed), most recent first.">
          {affectedUsers.length ? (
            <ul className="flex flex-col gap-1 text-sm">
              {affectedUsers.map((user) => (
                <li key={user.id} className="break-words">
                  {user.displayName ?? 'A former member'}
                  {user.email ? <span className="text-muted"> · {user.email}</span> : null}
                </li>
              ))}
            </ul>
          ) : (
            <p className="text-sm text-muted">No one is named: it happened signed out, or the organisation does not name people in reports.</p>
          )}
        </Section>
        <Section title="Occurrences" description="Newest first.">
          {occurrences.items.length ? (
            <ol className="flex flex-col gap-3">
              {occurrences.items.map((o, i) => (
                <li key={o.id}>
                  <FrontendErrorOccurrenceCard occurrence={o} locale={locale} open={i === 0 && page > 1} />
                </li>
              ))}
            </ol>
          ) : (
            <EmptyState heading="No occurrences on this page" headingLevel={3}>
              Go back to the first page.
            </EmptyState>
          )}
          <Pagination
            previous={page > 1 ? { page: page > 2 ? String(page - 1) : null } : null}
            next={occurrences.hasMore ? { page: String(page + 1) } : null}
            summary={`Page ${page}`}
            label="Occurrence pages"
          />
        </Section>
      </div>
    </>
  )
}

function Figure({ label, value, mono = false }: { label: string; value: string; mono?: boolean }) {
  return (
    <div className="flex min-w-0 flex-col">
      <dt className="text-muted">{label}</dt>
      <dd className={mono ? 'font-mono text-xs break-all' : 'font-medium'}>{value}</dd>
    </div>
  )
}

export function meta({ data: loaderData }: Route.MetaArgs) {
  return [{ title: `${loaderData?.detail.group.message.slice(0, 60) ?? 'Frontend error'} · Site Portal` }]
}

import { type ReactNode } from 'react'
import { Link } from 'react-router'
import { ItemPriorityBadge, ItemStatusBadge, OverdueBadge } from '~/components/reporting/item-badges'
import { ItemTime } from '~/components/reporting/item-time'
import { Banner } from '~/components/ui/banner'
import { formatDate, formatDateTime } from '~/lib/format'
import { type Item, projectTitle, reportTitle } from '~/lib/reporting/types'

const linkClass = 'text-primary-strong underline underline-offset-2'

/** The item's fields, times in the user's locale. */
export function ItemFacts({ item, packageName, locale }: { item: Item; packageName: (key: string) => string; locale: string }) {
  return (
    <dl className="grid grid-cols-1 gap-x-6 gap-y-3 text-sm sm:grid-cols-[max-content_minmax(0,1fr)]">
      <Fact label="Status">
        <span className="inline-flex flex-wrap gap-1.5">
          <ItemStatusBadge status={item.status} />
          {item.overdue ? <OverdueBadge /> : null}
        </span>
      </Fact>
      <Fact label="Priority">
        <ItemPriorityBadge priority={item.priority} />
      </Fact>
      <Fact label="Project">
        <Link to={`/reports?projectId=${encodeURIComponent(item.projectId)}`} className={linkClass}>
          {projectTitle(item.projectTitle)}
        </Link>
      </Fact>
      <Fact label="Report">
        <Link to={`/reports/${item.reportId}`} className={linkClass}>
          {reportTitle(item.reportTitle)}
        </Link>
      </Fact>
      <Fact label="Assignee">{item.assignee?.displayName ?? <Muted>Nobody yet</Muted>}</Fact>
      <Fact label="Package">{item.packageKey ? packageName(item.packageKey) : <Muted>None</Muted>}</Fact>
      <Fact label="Location">{item.location ?? <Muted>Not given</Muted>}</Fact>
      <Fact label="Due date">
        {item.dueDate ? (
          <span className="inline-flex flex-wrap items-center gap-1.5">
            <time dateTime={item.dueDate}>{formatDate(item.dueDate, locale)}</time>
            {item.overdue ? <OverdueBadge /> : null}
          </span>
        ) : (
          <Muted>None</Muted>
        )}
      </Fact>
      <Fact label="Recorded">
        {item.createdBy?.displayName ?? 'A former member'}, <ItemTime iso={item.createdAtUtc} locale={locale} />
      </Fact>
      {item.closedAtUtc ? (
        <Fact label="Closed">
          {item.closedBy?.displayName ?? 'A former member'}, <ItemTime iso={item.closedAtUtc} locale={locale} />
        </Fact>
      ) : null}
      <Fact label="Last changed">
        <ItemTime iso={item.updatedAtUtc} locale={locale} />
      </Fact>
      <Fact label="Description">{item.description ? <span className="whitespace-pre-line">{item.description}</span> : <Muted>None</Muted>}</Fact>
    </dl>
  )
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="font-medium text-muted">{label}</dt>
      <dd className="min-w-0 break-words text-text">{children}</dd>
    </>
  )
}

function Muted({ children }: { children: ReactNode }) {
  return <span className="text-muted">{children}</span>
}

/** "Ball in court": who must act next, said plainly, and whether that is the reader. */
export function NextActionBanner({ item, userId, locale }: { item: Item; userId: string | null; locale: string }) {
  if (item.status === 'closed') {
    const when = item.closedAtUtc ? ` on ${formatDateTime(item.closedAtUtc, locale)}` : ''
    return (
      <Banner tone="success" title="Closed" className="mb-6">
        Closed by {item.closedBy?.displayName ?? 'a former member'}
        {when}. Nobody needs to act; the verifier can reopen it with a reason.
      </Banner>
    )
  }
  const mine = item.nextAction.user !== null && item.nextAction.user.id === userId
  const hint =
    item.status === 'close_requested' ? 'Confirm the close, or reject it with the reason, below.' : 'Respond below, and ask to close it once the work is done.'
  return (
    <Banner tone={item.status === 'close_requested' ? 'warning' : 'info'} title={`Next action: ${item.nextAction.label}`} className="mb-6">
      {mine ? <p>That is you. {hint}</p> : <p>{item.status === 'close_requested' ? 'The close waits for the verifier’s confirmation.' : 'The item waits for its assignee.'}</p>}
    </Banner>
  )
}

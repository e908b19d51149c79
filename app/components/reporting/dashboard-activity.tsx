import { Link } from 'react-router'
import { formatDateTime } from '~/lib/format'
import type { ActivityEntry, DashboardFigures } from '~/lib/reporting/types'
import { useLocale } from '~/root'

type RecentEntry = DashboardFigures['recentActivity'][number]

/** How each change reads after the person's name: "Sam Site asked to close #12 Leaking pipe". */
const PHRASES: Record<ActivityEntry['action'], string> = {
  created: 'recorded',
  updated: 'updated',
  responded: 'responded to',
  close_requested: 'asked to close',
  closed: 'closed',
  reopened: 'reopened',
  deleted: 'deleted',
}

/** The organisation's latest changes to items: who, what, which item and when. */
export function DashboardActivity({ entries }: { entries: readonly RecentEntry[] }) {
  const locale = useLocale()
  return (
    <ol className="divide-y divide-border rounded-lg border border-border bg-surface">
      {entries.map((entry) => {
        const item = `#${entry.item.number} ${entry.item.title}`
        return (
          <li key={entry.id} className="flex flex-col gap-1 px-4 py-3 sm:flex-row sm:items-baseline sm:justify-between sm:gap-4">
            <p className="min-w-0 break-words">
              <span className="font-medium">{entry.actor?.displayName ?? 'Someone'}</span> {PHRASES[entry.action]}{' '}
              {entry.action === 'deleted' ? (
                <span>{item}</span>
              ) : (
                <Link to={`/items/${encodeURIComponent(entry.item.id)}`} className="text-primary-strong underline underline-offset-2">
                  {item}
                </Link>
              )}
            </p>
            <time dateTime={entry.createdAtUtc} className="shrink-0 text-sm text-muted">
              {formatDateTime(entry.createdAtUtc, locale)}
            </time>
          </li>
        )
      })}
    </ol>
  )
}

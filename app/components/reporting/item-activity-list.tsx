import { ItemTime } from '~/components/reporting/item-time'
import { EmptyState } from '~/components/ui/empty-state'
import { formatDate } from '~/lib/format'
import { PRIORITY_LABELS, STATUS_LABELS } from '~/lib/reporting/labels'
import type { ActivityEntry, ItemPriority, ItemStatus } from '~/lib/reporting/types'

const ACTIONS: Record<ActivityEntry['action'], string> = {
  created: 'recorded the item',
  updated: 'changed the item',
  responded: 'responded',
  close_requested: 'asked to close the item',
  closed: 'closed the item',
  reopened: 'reopened the item',
  deleted: 'deleted the item',
}

const FIELDS: Record<string, string> = {
  title: 'Title',
  description: 'Description',
  status: 'Status',
  priority: 'Priority',
  assignee: 'Assignee',
  assigneeUserId: 'Assignee',
  packageKey: 'Package',
  package: 'Package',
  location: 'Location',
  dueDate: 'Due date',
}

export type ActivityNames = {
  /** Member ids to names, for changes that carry an id rather than a name. */
  memberName: (userId: string) => string | undefined
  packageName: (key: string) => string
  locale: string
}

/** A value of a change as people read it: labels for states, names for people and packages. */
export function changeValue(field: string, value: unknown, names: ActivityNames): string {
  if (value === null || value === undefined || value === '') return 'none'
  if (typeof value === 'object' && 'displayName' in value && typeof value.displayName === 'string') return value.displayName
  if (typeof value !== 'string') return typeof value === 'number' || typeof value === 'boolean' ? String(value) : 'changed'
  switch (field) {
    case 'status':
      return STATUS_LABELS[value as ItemStatus] ?? value
    case 'priority':
      return PRIORITY_LABELS[value as ItemPriority] ?? value
    case 'assignee':
    case 'assigneeUserId':
      return names.memberName(value) ?? 'a former member'
    case 'packageKey':
    case 'package':
      return names.packageName(value)
    case 'dueDate':
      return /^\d{4}-\d{2}-\d{2}/.test(value) ? formatDate(value, names.locale) : value
    default:
      return value
  }
}

/** The item's history, oldest first: who, what, when, each change as field: old → new, and the reason when there is one. */
export function ItemActivityList({ entries, names }: { entries: readonly ActivityEntry[]; names: ActivityNames }) {
  if (entries.length === 0) return <EmptyState heading="No activity yet">Changes to the item are recorded here as they happen.</EmptyState>
  return (
    <ol className="flex flex-col gap-3">
      {entries.map((entry) => (
        <li key={entry.id} className="rounded-lg border border-border bg-surface p-3 sm:p-4">
          <p className="text-sm">
            <span className="font-semibold text-text">{entry.actor?.displayName ?? 'A former member'}</span> {ACTIONS[entry.action] ?? entry.action}
            <span className="text-muted">
              {' · '}
              <ItemTime iso={entry.createdAtUtc} locale={names.locale} />
            </span>
          </p>
          {entry.changes.length > 0 ? (
            <ul className="mt-2 flex flex-col gap-1 text-sm">
              {entry.changes.map((change, index) => {
                const from = changeValue(change.field, change.from, names)
                const to = changeValue(change.field, change.to, names)
                const created = entry.action === 'created' && from === 'none'
                return (
                  <li key={`${change.field}-${index}`} className="break-words whitespace-pre-line">
                    <span className="font-medium">{FIELDS[change.field] ?? change.field}:</span>{' '}
                    {created ? (
                      to
                    ) : (
                      <>
                        <span className="text-muted">{from}</span> <span aria-hidden="true">→</span>
                        <span className="sr-only"> to</span> {to}
                      </>
                    )}
                  </li>
                )
              })}
            </ul>
          ) : null}
          {entry.reason ? (
            <p className="mt-2 text-sm break-words whitespace-pre-line">
              <span className="font-medium">Reason:</span> {entry.reason}
            </p>
          ) : null}
        </li>
      ))}
    </ol>
  )
}

import { Link } from 'react-router'
import { Badge } from '~/components/ui/badge'
import type { ConfigStatusEntry } from '~/lib/admin/config'
import { formatDateTime } from '~/lib/format'

/**
 * The configuration categories, one row each: whether it is configured, its last change (who,
 * when) and its last test. A list, not a table, so a row wraps on a phone instead of scrolling.
 */
export function ConfigStatusList({ categories, descriptions, locale }: { categories: readonly ConfigStatusEntry[]; descriptions: Record<string, string>; locale: string }) {
  return (
    <ul aria-label="Configuration categories" className="flex flex-col divide-y divide-border rounded-lg border border-border bg-surface">
      {categories.map((entry) => (
        <li key={entry.category} className="flex flex-col gap-2 p-4 sm:flex-row sm:items-start sm:justify-between sm:gap-6">
          <div className="min-w-0">
            <h2 className="text-base font-semibold">
              <Link to={`/admin/configuration/${entry.category}`}>{entry.title}</Link>
            </h2>
            {descriptions[entry.category] ? <p className="mt-0.5 text-sm text-muted">{descriptions[entry.category]}</p> : null}
            <p className="mt-1 text-sm text-text">
              {entry.updatedAtUtc
                ? `Changed ${formatDateTime(entry.updatedAtUtc, locale)}${entry.updatedBy ? ` by ${entry.updatedBy.displayName}` : ''} (version ${entry.version}).`
                : 'Never changed: the defaults apply.'}
            </p>
            {entry.lastTest ? (
              <p className="mt-1 text-sm text-text">
                Last test {formatDateTime(entry.lastTest.testedAtUtc, locale)}: {entry.lastTest.ok ? 'passed' : 'failed'}. {entry.lastTest.message}
              </p>
            ) : null}
          </div>
          <div className="flex shrink-0 flex-wrap gap-2">
            <Badge tone={entry.configured ? 'success' : 'neutral'}>{entry.configured ? 'Configured' : 'Not configured'}</Badge>
            {entry.lastTest ? <Badge tone={entry.lastTest.ok ? 'success' : 'critical'}>{entry.lastTest.ok ? 'Test passed' : 'Test failed'}</Badge> : null}
          </div>
        </li>
      ))}
    </ul>
  )
}

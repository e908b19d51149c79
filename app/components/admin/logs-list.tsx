import { Link } from 'react-router'
import { Badge } from '~/components/ui/badge'
import { EmptyState } from '~/components/ui/empty-state'
import { LOG_LEVEL_TONES, logsHref, type LogLine } from '~/lib/admin/logs'

/**
 * A value that is or holds an id (a UUID anywhere, as in a path `/api/items/…`, or a long run of
 * hex, letters and digits): shown behind the line's Details toggle.
 */
const ID_VALUE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|^[0-9a-f]{24,}$|^[A-Za-z0-9_-]{32,}$/i

/**
 * The log lines as the API answers them (oldest first), shown newest first, in a monospace list
 * that wraps on a phone. What a line says (time, level, unit, message, path, status …) is in view;
 * its ids (correlation, visitor, user, organisation …) are behind its Details toggle, the
 * correlation and visitor ids as links that search for them.
 */
export function LogsList({ lines, locale, filtered }: { lines: readonly LogLine[]; locale: string; filtered: boolean }) {
  if (lines.length === 0) {
    return (
      <EmptyState heading={filtered ? 'No lines match these filters' : 'No log lines yet'} headingLevel={3}>
        {filtered
          ? 'Try a wider time or a lower level, or clear the filters. Older lines may have left this server’s memory.'
          : 'Lines appear here as people of this organisation use the portal.'}
      </EmptyState>
    )
  }
  return (
    <ol aria-label="Log lines" className="flex flex-col rounded-md border border-border bg-surface font-mono text-xs sm:text-sm">
      {[...lines].reverse().map((line) => (
        <LogLineItem key={`${line.seq}:${line.timeUtc}`} line={line} locale={locale} />
      ))}
    </ol>
  )
}

function LogLineItem({ line, locale }: { line: LogLine; locale: string }) {
  const scalars: [string, string][] = []
  const ids: [string, string][] = []
  const nested: [string, unknown][] = []
  for (const [key, value] of Object.entries(line.fields)) {
    if (value !== null && typeof value === 'object') nested.push([key, value])
    else if (typeof value === 'string' && ID_VALUE.test(value)) ids.push([key, value])
    else scalars.push([key, String(value)])
  }
  const hasDetails = line.correlationId || line.visitorId || ids.length > 0 || nested.length > 0
  return (
    <li className="flex flex-col gap-1 border-b border-border px-3 py-2 last:border-b-0">
      <p className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
        <time dateTime={line.timeUtc} className="text-muted">
          {formatLogTime(line.timeUtc, locale)}
        </time>
        <Badge tone={LOG_LEVEL_TONES[line.level]}>{line.level}</Badge>
        {line.unit ? <span className="text-muted">{line.unit}</span> : null}
        <span className="font-semibold break-words text-text">{line.msg}</span>
      </p>
      {scalars.length > 0 ? (
        <p className="break-all whitespace-pre-wrap text-muted">
          {scalars.map(([key, value]) => (
            <span key={key} className="mr-3 inline-block">
              {key}=<span className="text-text">{value}</span>
            </span>
          ))}
        </p>
      ) : null}
      {hasDetails ? (
        <details className="text-muted">
          <summary className="cursor-pointer text-primary-strong">Details</summary>
          <p className="mt-1 break-all whitespace-pre-wrap">
            {line.correlationId ? <SearchLink name="correlationId" value={line.correlationId} /> : null}
            {line.visitorId ? <SearchLink name="visitorId" value={line.visitorId} /> : null}
            {ids.map(([key, value]) => (
              <span key={key} className="mr-3 inline-block">
                {key}=<span className="text-text">{value}</span>
              </span>
            ))}
          </p>
          {nested.map(([key, value]) => (
            <div key={key} className="mt-1">
              <p>{key}</p>
              <pre className="overflow-x-auto break-all whitespace-pre-wrap text-text">{JSON.stringify(value, null, 2)}</pre>
            </div>
          ))}
        </details>
      ) : null}
    </li>
  )
}

function SearchLink({ name, value }: { name: string; value: string }) {
  return (
    <span className="mr-3 inline-block">
      {name}=
      <Link to={logsHref({ query: value })} className="text-primary-strong underline underline-offset-2" title={`Show the lines with this ${name}`}>
        {value}
      </Link>
    </span>
  )
}

// One formatter per locale, kept (building one costs far more than using it).
const formatters = new Map<string, Intl.DateTimeFormat>()

/** A line's moment to the second, in UTC like the portal's other dates, e.g. "26 Nov, 21:46:47 UTC". */
export function formatLogTime(isoUtc: string, locale: string): string {
  let format = formatters.get(locale)
  if (!format) {
    format = new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone: 'UTC', timeZoneName: 'short' })
    formatters.set(locale, format)
  }
  return format.format(new Date(isoUtc))
}

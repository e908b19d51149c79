import { useCallback, useMemo, useState } from 'react'
import { data, Link, useLocation } from 'react-router'
import { LogsFilters } from '~/components/admin/logs-filters'
import { LogsFollow } from '~/components/admin/logs-follow'
import { LogsList } from '~/components/admin/logs-list'
import { Banner } from '~/components/ui/banner'
import { buttonClasses } from '~/components/ui/button'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { hasLogFilters, liveFilterOf, LOG_FOLLOW_MAX_LINES, logsHref, momentForApi, type LogLine, type LogsPageQuery, type LogTailResponse } from '~/lib/admin/logs'
import { createServerApi } from '~/lib/api.server'
import { formatDateTime } from '~/lib/format'
import { useLocale } from '~/root'
import type { Route } from './+types/logs'
import { loadLogsPage, type VisitorErrors } from './logs.server'
import { frontendErrorsHref } from '~/lib/admin/frontend-errors'

/**
 * Administration › Logs (spec §2; docs/observability.md "Logs"): the lines this server wrote about
 * the organisation, newest first, a page at a time ("Older lines"), filtered in the address,
 * refreshed by reloading; with JavaScript new lines can be followed live through the hub.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  return data(await loadLogsPage(api, request), { headers: responseHeaders })
}

export default function Logs({ loaderData }: Route.ComponentProps) {
  const { query, drawnAtMs, tail, fieldErrors, notice, visitorErrors } = loaderData
  const location = useLocation()
  const locale = useLocale()
  return (
    <>
      <PageHeader
        title="Logs"
        description="What this server logged about your organisation: requests, background work, the realtime hub and mail. Search a correlation id from an error message to find what happened."
      />
      <Section
        title="Lines"
        description="Newest first. Secrets (passwords, tokens, cookies, codes) are never logged."
        actions={
          <Link to={`${location.pathname}${location.search}`} reloadDocument className={buttonClasses({ variant: 'secondary', size: 'sm' })}>
            Refresh
          </Link>
        }
      >
        <LogsFilters query={query} errors={fieldErrors} />
        <ScopeNote tail={tail} />
        {tail ? <PeriodNote query={query} locale={locale} /> : null}
        {notice ? (
          <Banner tone="critical" title="The log lines could not be loaded" correlationId={notice.correlationId}>
            {notice.message}
          </Banner>
        ) : null}
        {tail ? (
          query.before || query.to ? (
            // An older page, or a period that ends: nothing new is shown here; "Newest lines" goes back to the live end.
            <LogsList lines={tail.lines} locale={locale} filtered={hasLogFilters(query)} />
          ) : (
            <LiveLines key={`${location.search}:${drawnAtMs}`} query={query} drawnAtMs={drawnAtMs} lines={tail.lines} />
          )
        ) : null}
        {tail ? <LogsPaging query={query} nextBefore={tail.nextBefore} /> : null}
      </Section>
      {visitorErrors.length > 0 ? <VisitorErrorsSection visitors={visitorErrors} /> : null}
    </>
  )
}

/** The searched id's frontend errors: of the visitor it is, or of the visitors its lines name. */
function VisitorErrorsSection({ visitors }: { visitors: VisitorErrors[] }) {
  return (
    <Section title="Frontend errors of the same visitor" description="Errors the browser reported for the visitor this search found (kr-vis, the frontend error’s correlation id).">
      {visitors.map(({ visitorId, groups, hasMore }) => (
        <div key={visitorId} className="flex flex-col gap-2">
          <p className="text-sm">
            Visitor <span className="font-mono break-all">{visitorId}</span>
          </p>
          <ul className="flex flex-col gap-1 text-sm">
            {groups.map((g) => (
              <li key={g.fingerprint}>
                <Link to={`/admin/frontend-errors/${g.fingerprint}`} className="break-words text-primary-strong underline underline-offset-2">
                  {g.message}
                </Link>{' '}
                <span className="text-muted">({g.count}×)</span>
              </li>
            ))}
          </ul>
          {hasMore ? (
            <Link to={frontendErrorsHref({ visitor: visitorId })} className="text-sm text-primary-strong underline underline-offset-2">
              All of this visitor’s frontend errors
            </Link>
          ) : null}
        </div>
      ))}
    </Section>
  )
}

/** Older and newer pages: plain links in the address, so they work without JavaScript. */
function LogsPaging({ query, nextBefore }: { query: LogsPageQuery; nextBefore: number | null }) {
  if (!query.before && nextBefore === null) return null
  return (
    <nav aria-label="Pages of log lines" className="flex flex-wrap gap-2">
      {query.before ? (
        <Link to={logsHref({ ...query, before: '' })} className={buttonClasses({ variant: 'secondary', size: 'sm' })}>
          Newest lines
        </Link>
      ) : null}
      {nextBefore !== null ? (
        <Link to={logsHref({ ...query, before: String(nextBefore) })} className={buttonClasses({ variant: 'secondary', size: 'sm' })}>
          Older lines
        </Link>
      ) : null}
    </nav>
  )
}

/** The applied period in the reader's format ("From 1 May 2026, 09:30 UTC to 1 May 2026, 10:00 UTC"). */
function PeriodNote({ query, locale }: { query: LogsPageQuery; locale: string }) {
  const from = momentForApi(query.from, 'from')
  const to = momentForApi(query.to, 'to')
  if (!from && !to) return null
  const words = (iso: string) => formatDateTime(iso, locale)
  return (
    <p className="text-sm">
      {from && to ? `Lines from ${words(from)} to ${words(to)}.` : from ? `Lines from ${words(from)} on.` : `Lines up to ${words(to ?? '')}.`}
    </p>
  )
}

function ScopeNote({ tail }: { tail: LogTailResponse | null }) {
  return (
    <p className="text-sm text-muted">
      Only lines about this organisation, from this server, are shown: lines about no organisation (start-up, instance-wide jobs) are not. The
      server keeps its last 5,000 lines in memory
      {tail?.logFile ? '; it also writes them to its log file.' : ', and loses them when it restarts (no log file is configured).'}
    </p>
  )
}

/** The loaded lines plus, while following, the new ones on top (capped; the oldest go first). */
function LiveLines({ query, drawnAtMs, lines }: { query: LogsPageQuery; drawnAtMs: number; lines: LogLine[] }) {
  const locale = useLocale()
  const [live, setLive] = useState<LogLine[]>([])
  const filter = useMemo(() => liveFilterOf(query, drawnAtMs), [query, drawnAtMs])
  const onLines = useCallback(
    (added: LogLine[]) =>
      setLive((current) => {
        const seen = new Set([...lines, ...current].map((line) => `${line.seq}:${line.timeUtc}`))
        return [...current, ...added.filter((line) => !seen.has(`${line.seq}:${line.timeUtc}`))].slice(-LOG_FOLLOW_MAX_LINES)
      }),
    [lines],
  )
  const shown = live.length === 0 ? lines : [...lines, ...live].slice(-LOG_FOLLOW_MAX_LINES)
  return (
    <>
      <LogsFollow filter={filter} onLines={onLines} />
      <LogsList lines={shown} locale={locale} filtered={hasLogFilters(query)} />
    </>
  )
}

export function meta() {
  return [{ title: 'Logs · Administration · Site Portal' }]
}

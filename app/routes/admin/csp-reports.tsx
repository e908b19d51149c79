import { data, Link } from 'react-router'
import { CspReportsFilters } from '~/components/admin/csp-reports-filters'
import { CspReportEntries, CspReportsTable, CspUntenantedTable } from '~/components/admin/csp-reports-table'
import { Banner } from '~/components/ui/banner'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { cspReportsHref, cspReportsQuery } from '~/lib/admin/csp-reports'
import { createServerApi } from '~/lib/api.server'
import { formatDateTime } from '~/lib/format'
import { useLocale } from '~/root'
import type { Route } from './+types/csp-reports'
import { loadCspReports } from './csp-reports.server'

/**
 * Administration › Security › CSP reports (issue 15; docs/observability.md): what browsers blocked
 * (or reported) on the portal's pages under its Content Security Policy, grouped by directive and
 * blocked address, each group's reports one link away (`?group=`). Reports from pages drawn for no
 * one signed in are shown apart, as counts. Filters and paging in the URL; no JavaScript needed.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const query = cspReportsQuery(new URL(request.url))
  const { api, responseHeaders } = createServerApi(request, context)
  return data({ query, ...(await loadCspReports(api, query)) }, { headers: responseHeaders })
}

export default function CspReports({ loaderData }: Route.ComponentProps) {
  const { query, latest, list, fieldErrors, notice, reports, reportsMissing } = loaderData
  const locale = useLocale()
  const filtered = query.directive !== null || query.since !== null || query.disposition !== null
  const link = 'text-sm text-primary-strong underline underline-offset-2'
  return (
    <>
      <PageHeader
        title="CSP reports"
        description="What browsers blocked on the portal’s pages because the Content Security Policy does not allow it: a script or style from elsewhere, an inline script without the page’s nonce. A sudden group can mean an injected script or a browser extension."
      />
      <div className="flex flex-col gap-10">
        {latest ? (
          <p className="text-sm text-muted">
            Latest: <span className="font-mono text-xs break-all text-text">{latest.directive}</span> blocked{' '}
            <span className="font-mono text-xs break-all text-text">{latest.blockedUrl}</span>, {formatDateTime(latest.lastSeenUtc, locale)}.
          </p>
        ) : null}
        {query.group ? (
          <Section
            title={reports ? `Reports: ${reports.group.directive} ${reports.group.blockedUrl}` : 'Reports'}
            description={reports ? `${reports.group.count} in all, newest first.` : undefined}
            actions={
              <Link to={cspReportsHref({ ...query, group: null })} className={link}>
                Close reports
              </Link>
            }
          >
            {reports ? (
              <CspReportEntries reports={reports.items} locale={locale} />
            ) : reportsMissing ? (
              <p className="text-sm text-muted">These reports are no longer there (removed after 90 days).</p>
            ) : null}
          </Section>
        ) : null}
        <Section
          title="By directive and blocked address"
          description="Last seen first."
          actions={
            filtered ? (
              <Link to={cspReportsHref({})} className={link}>
                Clear filters
              </Link>
            ) : undefined
          }
        >
          <div className="flex flex-col gap-4">
            <CspReportsFilters query={query} errors={fieldErrors} />
            {notice ? (
              <Banner tone="critical" title="The reports could not be loaded" correlationId={notice.correlationId}>
                {notice.message}
              </Banner>
            ) : null}
            {list ? (
              <CspReportsTable
                groups={list.items}
                query={query}
                locale={locale}
                filtered={filtered}
                pagination={{
                  previous: list.page > 1 ? { page: list.page === 2 ? null : String(list.page - 1), group: null } : null,
                  next: list.nextPage ? { page: String(list.nextPage), group: null } : null,
                  summary: `Page ${list.page}`,
                  label: 'CSP report pages',
                }}
              />
            ) : null}
          </div>
        </Section>
        {list && list.untenanted.length > 0 ? (
          <Section
            title="From pages drawn for no one signed in"
            description="Sign-in and other public pages report without an organisation: anyone may have sent these, so only their counts are shown, for the whole server."
          >
            <CspUntenantedTable groups={list.untenanted} locale={locale} />
          </Section>
        ) : null}
      </div>
    </>
  )
}

export function meta() {
  return [{ title: 'CSP reports · Administration · Site Portal' }]
}

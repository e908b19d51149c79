import { data, Form, Link } from 'react-router'
import { DiagnosticsChart } from '~/components/admin/diagnostics-chart'
import { Banner } from '~/components/ui/banner'
import { Button } from '~/components/ui/button'
import { DataTable } from '~/components/ui/data-table'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { SelectField } from '~/components/ui/select-field'
import {
  analysisQuery,
  ANALYSIS_SCOPES,
  DIAGNOSTIC_CHECK_LABELS,
  type AnalysisQuery,
  type AnalysisSummaryRow,
  type DiagnosticCheck,
} from '~/lib/admin/diagnostics'
import { createServerApi } from '~/lib/api.server'
import { formatDateTime, formatNumber } from '~/lib/format'
import { useLocale } from '~/root'
import type { Route } from './+types/diagnostics-analysis'
import { loadAnalysis } from './diagnostics.server'

/**
 * Administration › Diagnostics › Analysis (docs/observability.md "Diagnostics"): for a window chosen
 * in the URL, per check how often it ran and failed and how long it took, then per check a chart
 * of failures and latency per hour (per day past three days), drawn on the server with its figures
 * as a table.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const query = analysisQuery(new URL(request.url))
  const { api, responseHeaders } = createServerApi(request, context)
  return data({ query, ...(await loadAnalysis(api, query)) }, { headers: responseHeaders })
}

const WINDOWS = [
  { hours: 6, label: 'Last 6 hours' },
  { hours: 24, label: 'Last 24 hours' },
  { hours: 72, label: 'Last 3 days' },
  { hours: 168, label: 'Last 7 days' },
  { hours: 720, label: 'Last 30 days' },
]

const SCOPE_CHOICES: Record<(typeof ANALYSIS_SCOPES)[number], string> = {
  instance: 'This server (scheduled runs)',
  organisation: 'This organisation (runs by administrators)',
}

function WindowForm({ query }: { query: AnalysisQuery }) {
  const windows = WINDOWS.some((w) => w.hours === query.hours) ? WINDOWS : [...WINDOWS, { hours: query.hours, label: `Last ${query.hours} hours` }]
  return (
    <Form method="get" action="/admin/diagnostics/analysis" aria-label="Choose the window" className="flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-end" key={`${query.hours}-${query.scope}`}>
      <SelectField
        label="Window"
        selectProps={{ name: 'hours', id: 'analysis-hours', defaultValue: String(query.hours) }}
        options={windows.map((w) => ({ value: String(w.hours), label: w.label }))}
      />
      <SelectField
        label="Whose runs"
        selectProps={{ name: 'scope', id: 'analysis-scope', defaultValue: query.scope }}
        options={ANALYSIS_SCOPES.map((s) => ({ value: s, label: SCOPE_CHOICES[s] }))}
      />
      <Button type="submit" variant="secondary">
        Show
      </Button>
    </Form>
  )
}

const ms = (value: number | null, locale: string) => (value === null ? '–' : formatNumber(value, locale))

function SummaryTable({ rows, locale }: { rows: readonly AnalysisSummaryRow[]; locale: string }) {
  const percent = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 })
  return (
    <DataTable
      caption="Per check"
      captionHidden
      rows={rows}
      rowKey={(r) => r.check}
      columns={[
        { key: 'check', header: 'Check', rowHeader: true, cell: (r) => DIAGNOSTIC_CHECK_LABELS[r.check] },
        { key: 'attempts', header: 'Attempts', align: 'end', cell: (r) => formatNumber(r.attempts, locale) },
        { key: 'failures', header: 'Failures', align: 'end', cell: (r) => formatNumber(r.failures, locale) },
        { key: 'rate', header: 'Failure rate', align: 'end', cell: (r) => (r.attempts - r.skipped > 0 ? percent.format(r.failureRate) : '–') },
        { key: 'p50', header: 'p50 (ms)', align: 'end', hideOnMobile: true, cell: (r) => ms(r.p50LatencyMs, locale) },
        { key: 'p95', header: 'p95 (ms)', align: 'end', cell: (r) => ms(r.p95LatencyMs, locale) },
        { key: 'max', header: 'Max (ms)', align: 'end', hideOnMobile: true, cell: (r) => ms(r.maxLatencyMs, locale) },
        { key: 'row', header: 'Failing in a row', align: 'end', cell: (r) => formatNumber(r.consecutiveFailures, locale) },
        {
          key: 'last',
          header: 'Last failure',
          hideOnMobile: true,
          cell: (r) =>
            r.lastFailureUtc ? (
              <span className="block min-w-48 break-words">
                {formatDateTime(r.lastFailureUtc, locale)}
                {r.lastError ? <span className="block text-xs text-critical">{r.lastError}</span> : null}
              </span>
            ) : (
              'None'
            ),
        },
      ]}
    />
  )
}

export default function DiagnosticsAnalysis({ loaderData }: Route.ComponentProps) {
  const { query, summary, series, notice } = loaderData
  const locale = useLocale()
  return (
    <>
      <PageHeader
        title="Diagnostics analysis"
        description="How often each check failed and how long it took, over a window you choose."
        actions={
          <Link to="/admin/diagnostics" className="text-sm text-primary-strong underline underline-offset-2">
            Diagnostics
          </Link>
        }
      />
      <div className="flex flex-col gap-10">
        <WindowForm query={query} />
        {notice ? (
          <Banner tone="critical" title="The analysis could not be loaded" correlationId={notice.correlationId}>
            {notice.message}
          </Banner>
        ) : null}
        {summary ? (
          <Section title="Summary" description={`From ${formatDateTime(summary.fromUtc, locale)} to ${formatDateTime(summary.toUtc, locale)}. Skipped checks count as attempts, not in the rate or the times.`}>
            <SummaryTable rows={summary.checks} locale={locale} />
          </Section>
        ) : null}
        {series ? (
          <Section title={series.bucket === 'day' ? 'Per day' : 'Per hour'} description="Attempts with their failures, and the mean and 95th percentile time, per check.">
            <ul className="grid gap-8 lg:grid-cols-2">
              {series.checks.map((c) => (
                <li key={c.check} className="flex min-w-0 flex-col gap-2">
                  <h3 className="font-semibold text-text">{DIAGNOSTIC_CHECK_LABELS[c.check as DiagnosticCheck]}</h3>
                  <DiagnosticsChart check={c.check} points={c.points} bucket={series.bucket} locale={locale} />
                </li>
              ))}
            </ul>
          </Section>
        ) : null}
      </div>
    </>
  )
}

export function meta() {
  return [{ title: 'Diagnostics analysis · Site Portal' }]
}

import { data, Link } from 'react-router'
import { DashboardChart } from '~/components/doc-control/dashboard-chart'
import { loadProjectChoice } from '~/components/doc-control/project-choice.server'
import { noticeOf } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { Card } from '~/components/ui/card'
import { DataTable } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { createServerApi } from '~/lib/api.server'
import { statusLabel } from '~/lib/documents/rules'
import { formatNumber } from '~/lib/format'
import { projectTitle } from '~/lib/reporting/types'
import { useLocale } from '~/root'
import type { Route } from './+types/dashboard'

/**
 * Document-control dashboard (docs/doc-control.md "Screens"): a project's documents by status and
 * by state, its reviews active and overdue, its transmittals awaiting acknowledgement, and issued
 * against planned deliverables per month as a chart drawn on the server (no chart script), with
 * the figures as a table too. Each figure links to the screen where it is dealt with.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const choice = await loadProjectChoice(api, request, responseHeaders)
  if (!choice.project) return data({ ...choice, summary: null, loadNotice: null }, { headers: responseHeaders })
  const summary = await api.GET('/api/projects/{id}/doc-control/summary', { path: { id: choice.project.id } })
  return data({ ...choice, summary: summary.ok ? summary.data : null, loadNotice: summary.ok ? null : noticeOf(summary.error) }, { headers: responseHeaders })
}

export default function Dashboard({ loaderData }: Route.ComponentProps) {
  const { project, summary, loadNotice } = loaderData
  const locale = useLocale()
  const query = project ? `?${new URLSearchParams({ projectId: project.id })}` : ''
  return (
    <>
      <PageHeader title="Document control" description="Where a project’s documents stand: reviews, transmittals, and what was issued against the plan." />
      {!project ? (
        <EmptyState heading="Choose a project">
          Its figures are shown here once you open it. Your review tasks and the transmittals sent to you are in your{' '}
          <Link to="/doc-control/inbox" className="text-primary-strong underline underline-offset-2">
            inbox
          </Link>
          .
        </EmptyState>
      ) : (
        <div className="flex flex-col gap-8">
          {loadNotice ? (
            <Banner tone="critical" title="The figures could not be loaded" correlationId={loadNotice.correlationId}>
              {loadNotice.message}
            </Banner>
          ) : null}
          {summary ? (
            <>
              <h2 className="sr-only">Figures of {projectTitle(project.title)}</h2>
              <dl className="grid gap-4 sm:grid-cols-3">
                <Figure label="Reviews under way" value={summary.reviewsActive} to={`/doc-control/workflows${query}`} linkText="See the reviews" locale={locale} />
                <Figure
                  label="Reviews overdue"
                  value={summary.reviewsOverdue}
                  to={`/doc-control/workflows${query}`}
                  linkText="See the reviews"
                  locale={locale}
                  tone={summary.reviewsOverdue > 0 ? 'critical' : undefined}
                />
                <Figure
                  label="Transmittals awaiting acknowledgement"
                  value={summary.transmittalsAwaitingAcknowledgement}
                  to={`/doc-control/transmittals${query}`}
                  linkText="See the transmittals"
                  locale={locale}
                />
              </dl>
              <p className="text-sm">
                <Link to="/doc-control/inbox" className="text-primary-strong underline underline-offset-2">
                  Your inbox
                </Link>{' '}
                has the review tasks and transmittals waiting for you.
              </p>
              <div className="grid gap-6 md:grid-cols-2">
                <DataTable
                  caption="Documents by status"
                  columns={[
                    { key: 'status', header: 'Status', rowHeader: true, cell: (r: { status: string }) => `${r.status} · ${statusLabel(r.status)}` },
                    { key: 'count', header: 'Documents', align: 'end', cell: (r: { count: number }) => formatNumber(r.count, locale) },
                  ]}
                  rows={summary.byStatus}
                  rowKey={(r) => r.status}
                  emptyState={<EmptyState heading="No documents yet">Documents filed in this project are counted here.</EmptyState>}
                />
                <DataTable
                  caption="Documents by state"
                  columns={[
                    { key: 'state', header: 'State', rowHeader: true, cell: (r: { state: string }) => r.state },
                    { key: 'count', header: 'Documents', align: 'end', cell: (r: { count: number }) => formatNumber(r.count, locale) },
                  ]}
                  rows={summary.byState}
                  rowKey={(r) => r.state}
                  emptyState={<EmptyState heading="No documents yet">Documents filed in this project are counted here.</EmptyState>}
                />
              </div>
              <Section
                title="Issued vs planned"
                description="Deliverables planned by each month (their first milestone) against those issued by then."
                actions={
                  <Link to={`/doc-control/deliverables${query}`} className="text-sm text-primary-strong underline underline-offset-2">
                    Open the deliverables register
                  </Link>
                }
              >
                {summary.issuedVsPlanned.length === 0 ? (
                  <EmptyState heading="Nothing planned yet">Plan deliverables with dates in the register and the chart shows their progress.</EmptyState>
                ) : (
                  <DashboardChart points={summary.issuedVsPlanned} locale={locale} />
                )}
              </Section>
            </>
          ) : null}
        </div>
      )}
    </>
  )
}

function Figure({ label, value, to, linkText, locale, tone }: { label: string; value: number; to: string; linkText: string; locale: string; tone?: 'critical' | undefined }) {
  return (
    <Card className="flex flex-col gap-1">
      <dt className="text-sm text-muted">{label}</dt>
      <dd className={`text-3xl font-semibold ${tone === 'critical' ? 'text-critical' : 'text-text'}`}>{formatNumber(value, locale)}</dd>
      <dd>
        <Link to={to} className="text-sm text-primary-strong underline underline-offset-2" aria-label={`${linkText}: ${label.toLowerCase()}`}>
          {linkText}
        </Link>
      </dd>
    </Card>
  )
}

export function meta() {
  return [{ title: 'Dashboard · Document control · Site Portal' }]
}

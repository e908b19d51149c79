import { data } from 'react-router'
import { DashboardActivity } from '~/components/reporting/dashboard-activity'
import { DashboardFigure } from '~/components/reporting/dashboard-figure'
import { noticeOf } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { ButtonLink } from '~/components/ui/button-link'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { liveMatch, useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { createServerApi } from '~/lib/api.server'
import type { DocControlAttention } from '~/lib/doc-control/types'
import type { DashboardFigures } from '~/lib/reporting/types'
import { useShellSession } from '~/root'
import type { Route } from './+types/dashboard'

/**
 * The dashboard (/, /control-panel, /dashboard): what needs attention, each figure a link to the
 * items it counts, and the organisation's latest changes to items.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const [result, attention] = await Promise.all([api.GET('/api/dashboard'), api.GET('/api/doc-control/attention')])
  return data(
    {
      figures: result.ok ? result.data : null,
      loadNotice: result.ok ? null : noticeOf(result.error),
      attention: attention.ok ? attention.data : null,
      attentionNotice: attention.ok ? null : noticeOf(attention.error),
    },
    { headers: responseHeaders },
  )
}

/** The /items views behind the figures (the items screen reads these parameters). */
const DASHBOARD_LINKS = {
  open: '/items?status=open',
  awaitingMyConfirmation: '/items?status=close_requested&verifier=me',
  overdue: '/items?overdue=true',
  assignedToMe: '/items?assignee=me',
} as const

/** The document-control lists behind its figures: my inbox, by kind; the deliverables register of the project they are in (the remembered one when there are several). */
function docControlLinks(attention: DocControlAttention) {
  const [only, ...others] = attention.overdueDeliverables.projects
  return {
    reviews: '/doc-control/inbox?kind=tasks',
    transmittals: '/doc-control/inbox?kind=transmittals',
    deliverables: only && others.length === 0 ? `/doc-control/deliverables?${new URLSearchParams({ projectId: only.projectId })}` : '/doc-control/deliverables',
  }
}

export default function Dashboard({ loaderData }: Route.ComponentProps) {
  useLiveRevalidation(liveMatch.reporting)
  const { figures, loadNotice, attention, attentionNotice } = loaderData
  const session = useShellSession()
  if (!session) return null
  return (
    <>
      <PageHeader title="Dashboard" description={`${session.tenantName} · welcome, ${session.displayName}.`} />
      {loadNotice ? (
        <Banner tone="critical" title="The figures could not be loaded" correlationId={loadNotice.correlationId} action={<ButtonLink to="." reloadDocument variant="secondary" size="sm">Try again</ButtonLink>}>
          {loadNotice.message}
        </Banner>
      ) : null}
      {figures ? (
        <div className="flex flex-col gap-8">
          <Section title="Needs attention">
            <ul className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-4">
              <li>
                <DashboardFigure label="Open items" value={figures.openCount} to={DASHBOARD_LINKS.open} />
              </li>
              <li>
                <DashboardFigure label="Waiting for my confirmation" value={figures.awaitingMyConfirmationCount} to={DASHBOARD_LINKS.awaitingMyConfirmation} />
              </li>
              <li>
                <DashboardFigure label="Overdue items" value={figures.overdueCount} to={DASHBOARD_LINKS.overdue} alarming />
              </li>
              <li>
                <DashboardFigure label="Assigned to me" value={figures.assignedToMeCount} to={DASHBOARD_LINKS.assignedToMe} />
              </li>
            </ul>
          </Section>
          {attention ? <DocControlFigures attention={attention} /> : null}
          {attentionNotice ? (
            <Banner tone="critical" title="The document-control figures could not be loaded" correlationId={attentionNotice.correlationId}>
              {attentionNotice.message}
            </Banner>
          ) : null}
          <Section title="Recent activity">
            {figures.recentActivity.length > 0 ? (
              <DashboardActivity entries={figures.recentActivity} />
            ) : hasItems(figures) ? (
              <EmptyState heading="No recent activity" headingLevel={3}>
                Nobody has changed an item lately.
              </EmptyState>
            ) : (
              <EmptyState
                heading="No items recorded yet"
                headingLevel={3}
                action={
                  <ButtonLink to="/reports" variant="secondary">
                    Go to Reports
                  </ButtonLink>
                }
              >
                Items are recorded in a report. Once your team records some, what is open, overdue or waiting for you shows up here, with the latest changes.
              </EmptyState>
            )}
          </Section>
        </div>
      ) : null}
    </>
  )
}

function DocControlFigures({ attention }: { attention: DocControlAttention }) {
  const links = docControlLinks(attention)
  return (
    <Section title="Document control">
      <ul className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-4">
        <li>
          <DashboardFigure label="Reviews waiting for me" value={attention.reviewsWaitingCount} to={links.reviews} />
        </li>
        <li>
          <DashboardFigure label="Transmittals to acknowledge" value={attention.transmittalsToAcknowledgeCount} to={links.transmittals} />
        </li>
        <li>
          <DashboardFigure label="Overdue deliverables" value={attention.overdueDeliverables.count} to={links.deliverables} alarming />
        </li>
      </ul>
    </Section>
  )
}

function hasItems(figures: DashboardFigures): boolean {
  return figures.openCount + figures.awaitingMyConfirmationCount + figures.overdueCount + figures.assignedToMeCount > 0
}

export function meta() {
  return [{ title: 'Dashboard · Site Portal' }]
}

import { parseWithZod } from '@conform-to/zod/v4'
import { data, Link, redirect, useActionData, useLocation } from 'react-router'
import { useReportingAbilities } from '~/components/reporting/project-abilities'
import { formFailure, invalidForm, noticeOf, resultFor } from '~/components/reporting/report-action'
import { type ReportFilter, ReportFilterForm } from '~/components/reporting/report-filter-form'
import { cursorPagination, cursorPosition, cursorQuery } from '~/components/reporting/report-paging'
import { Badge } from '~/components/ui/badge'
import { Banner } from '~/components/ui/banner'
import { buttonClasses } from '~/components/ui/button'
import { ButtonLink } from '~/components/ui/button-link'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { liveMatch, useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { createServerApi } from '~/lib/api.server'
import type { ApiClient, ApiResult } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { formatDate, formatNumber } from '~/lib/format'
import { STATUS_TONES } from '~/lib/reporting/labels'
import { type Page, type Project, type Report, projectTitle, reportTitle } from '~/lib/reporting/types'
import { ReportCreateSchema } from '~/lib/schemas/reporting-projects'
import { useLocale } from '~/root'
import type { Route } from './+types/reports'
import { deferred, partsBeforeNavigation } from '~/components/ui/deferred'

// The forms hydrate after the rest of the screen (app/components/ui/deferred.tsx), so the form
// library is not in the screen's first load.
const loadReportCreateForm = async () => (await import('~/components/reporting/report-create-form')).ReportCreateForm
const ReportCreateForm = deferred(loadReportCreateForm, import.meta.env.SSR ? await loadReportCreateForm() : undefined)
await partsBeforeNavigation(ReportCreateForm)

/**
 * Reports (spec §2): every report of the organisation, newest first, filtered by project and
 * status in the URL, with each report's items by state. Read-write members create reports here
 * and land on the new report to record its items.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const url = new URL(request.url)
  const filter: ReportFilter = {
    projectId: url.searchParams.get('projectId') || undefined,
    status: url.searchParams.get('status') === 'archived' ? 'archived' : 'active',
  }
  const position = cursorPosition(url.searchParams)
  const { api, responseHeaders } = createServerApi(request, context)
  const query = new URLSearchParams({ status: filter.status, ...(filter.projectId && { projectId: filter.projectId }), ...cursorQuery(position) })
  const [list, projects] = await Promise.all([api.GET('/api/reports', { query: new URLSearchParams(query) }), allProjects(api)])
  return data(
    {
      filter,
      position,
      page: list.ok ? list.data : null,
      projects,
      loadNotice: list.ok ? null : noticeOf(list.error),
    },
    { headers: responseHeaders },
  )
}

/** Projects for the filter and the create form; pages are 100 at most, a few pages are plenty for a select. */
const PROJECT_PAGES_MAX = 5

async function allProjects(api: ApiClient): Promise<Project[]> {
  const projects: Project[] = []
  let after: string | null = null
  for (let pageIndex = 0; pageIndex < PROJECT_PAGES_MAX; pageIndex++) {
    const query: URLSearchParams = new URLSearchParams({ status: 'all', limit: '100', ...(after && { after }) })
    const result: ApiResult<Page<Project>> = await api.GET('/api/projects', { query: new URLSearchParams(query) })
    if (!result.ok) break
    projects.push(...result.data.items)
    after = result.data.nextCursor
    if (!after) break
  }
  return projects
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const intent = String(formData.get('intent') ?? '')
  switch (intent) {
    case 'create': {
      const submission = parseWithZod(formData, { schema: ReportCreateSchema })
      if (submission.status !== 'success') return invalidForm(intent, submission)
      const result = await api.POST('/api/reports', { body: submission.value, idempotencyKey: true })
      if (!result.ok) return formFailure(intent, submission, result.error, responseHeaders)
      await setFlash(responseHeaders, { tone: 'success', message: `Report “${reportTitle(result.data.title)}” created. Add its items below.` })
      throw redirect(`/reports/${encodeURIComponent(result.data.id)}`, { headers: responseHeaders })
    }
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

export default function Reports({ loaderData }: Route.ComponentProps) {
  useLiveRevalidation(liveMatch.reports)
  const { filter, position, page, projects, loadNotice } = loaderData
  const actionData = useActionData<typeof action>()
  const location = useLocation()
  const locale = useLocale()
  const can = useReportingAbilities()
  const activeProjects = projects.filter((project) => project.status === 'active')
  const filteredProject = projects.find((project) => project.id === filter.projectId)
  const count = (value: number) => formatNumber(value, locale)

  const projectLink = (report: Report) => (
    <Link to={`/reports?projectId=${encodeURIComponent(report.projectId)}`} className="text-primary-strong underline underline-offset-2">
      {projectTitle(report.projectTitle)}
    </Link>
  )
  const columns: Array<DataTableColumn<Report>> = [
    {
      key: 'title',
      header: 'Report',
      rowHeader: true,
      cell: (report) => (
        <span className="flex flex-col gap-1">
          <span className="flex flex-wrap items-center gap-2">
            <Link to={`/reports/${encodeURIComponent(report.id)}`} className="text-primary-strong underline underline-offset-2">
              {reportTitle(report.title)}
            </Link>
            {report.status === 'archived' ? <Badge>Archived</Badge> : null}
          </span>
          {/* A phone has no room for the Project column: the project goes under the title. */}
          <span className="font-normal text-muted sm:hidden">{projectLink(report)}</span>
        </span>
      ),
    },
    { key: 'project', header: 'Project', hideOnMobile: true, cell: projectLink },
    {
      key: 'items',
      header: 'Items',
      cell: (report) => (
        <ul className="flex flex-wrap gap-1">
          <li className="flex">
            <Badge tone={STATUS_TONES.open}>{count(report.itemCounts.open)} open</Badge>
          </li>
          <li className="flex">
            <Badge tone={STATUS_TONES.close_requested}>{count(report.itemCounts.closeRequested)} close requested</Badge>
          </li>
          <li className="flex">
            <Badge tone={STATUS_TONES.closed}>{count(report.itemCounts.closed)} closed</Badge>
          </li>
        </ul>
      ),
    },
    { key: 'created', header: 'Created', hideOnMobile: true, cell: (report) => formatDate(report.createdAtUtc, locale) },
  ]

  const which = filter.status === 'archived' ? 'Archived reports' : 'Reports'
  const caption = filteredProject ? `${which} of ${projectTitle(filteredProject.title)}` : which
  const notice = actionData?.notice ?? loadNotice
  return (
    <>
      <PageHeader
        title="Reports"
        description="Site visits and inspections, each with the items found on it."
        actions={
          can.write && activeProjects.length > 0 ? (
            // An in-page jump to the form (below the list on a phone): a plain anchor, no navigation.
            <a href="#new-report" className={buttonClasses({ variant: 'secondary' })}>
              New report
            </a>
          ) : undefined
        }
      />
      {notice ? (
        <Banner tone="critical" title="That did not work" correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      <div className="grid gap-8 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <div className="flex min-w-0 flex-col gap-4">
          <ReportFilterForm projects={projects} filter={filter} />
          {page ? (
            <DataTable
              caption={caption}
              columns={columns}
              rows={page.items}
              rowKey={(report) => report.id}
              pagination={cursorPagination(position, page.nextCursor, 'Reports pages')}
              emptyState={
                <EmptyState heading={filter.status === 'archived' ? 'No archived reports' : 'No reports yet'}>
                  {filteredProject ? `${projectTitle(filteredProject.title)} has none.` : 'When someone creates a report, it is listed here.'}
                </EmptyState>
              }
            />
          ) : null}
        </div>
        {can.write ? (
          <Section title="New report" description="A report belongs to one project. You add its items on the next page.">
            <div id="new-report" className="scroll-mt-4">
              {activeProjects.length > 0 ? (
                <ReportCreateForm
                  key={location.key}
                  projects={activeProjects}
                  projectId={filteredProject?.status === 'active' ? filteredProject.id : undefined}
                  lastResult={resultFor(actionData, 'create')}
                />
              ) : (
                <EmptyState heading="No active project" headingLevel={3} action={<ButtonLink to="/projects">Go to Projects</ButtonLink>}>
                  A report needs an active project. Create one first.
                </EmptyState>
              )}
            </div>
          </Section>
        ) : null}
      </div>
    </>
  )
}

export function meta() {
  return [{ title: 'Reports · Site Portal' }]
}

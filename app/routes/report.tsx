import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, Link, redirect, useActionData, useLocation } from 'react-router'
import { useReportingAbilities } from '~/components/reporting/project-abilities'
import { formFailure, invalidForm, noticeFailure, noticeOf, resultFor, revisionFor } from '~/components/reporting/report-action'
import { ReportItemsTable } from '~/components/reporting/report-items-table'
import { cursorPagination, cursorPosition, cursorQuery } from '~/components/reporting/report-paging'
import { EXPORT_JOB_INTENT } from '~/lib/exports/intents'
import { startBackgroundExport } from '~/lib/exports/start-export.server'
import type { ExportEstimate } from '~/lib/exports/types'
import { Banner } from '~/components/ui/banner'
import { buttonClasses } from '~/components/ui/button'
import { ButtonLink } from '~/components/ui/button-link'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { liveMatch, useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { createServerApi } from '~/lib/api.server'
import { setFlash } from '~/lib/flash.server'
import { failureStatus } from '~/lib/forms'
import { formatDate } from '~/lib/format'
import { type Report, projectTitle, reportTitle } from '~/lib/reporting/types'
import { ItemCreateSchema, ReportRenameSchema } from '~/lib/schemas/reporting-projects'
import { useLocale } from '~/root'
import { revisionFromForm } from '~/lib/schemas/edit-conflict'
import type { Route } from './+types/report'
import { deferred, partsBeforeNavigation } from '~/components/ui/deferred'

// The job form of an export too large to stream, fetched only when the screen shows it (app/components/ui/deferred.tsx).
const loadExportForm = async () => (await import('~/components/exports/background-export-form')).BackgroundExportForm
const BackgroundExportForm = deferred(loadExportForm, import.meta.env.SSR ? await loadExportForm() : undefined, { fetchNow: false })

// The forms hydrate after the rest of the screen (app/components/ui/deferred.tsx), so the form
// library is not in the screen's first load.
const loadReportAddItemForm = async () => (await import('~/components/reporting/report-add-item-form')).ReportAddItemForm
const ReportAddItemForm = deferred(loadReportAddItemForm, import.meta.env.SSR ? await loadReportAddItemForm() : undefined)
const loadReportRenameForm = async () => (await import('~/components/reporting/report-rename-form')).ReportRenameForm
const ReportRenameForm = deferred(loadReportRenameForm, import.meta.env.SSR ? await loadReportRenameForm() : undefined)
await partsBeforeNavigation(ReportAddItemForm, ReportRenameForm)

/**
 * A report's page (/reports/{reportId}): its title and project, its items in the order they were
 * recorded, and the form that adds one. `?rename=1` shows the rename form; the paging cursors
 * are in the URL too.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const url = new URL(request.url)
  const position = cursorPosition(url.searchParams)
  const { api, responseHeaders } = createServerApi(request, context)
  const found = await api.GET('/api/reports/{id}', { path: { id: params.reportId } })
  if (!found.ok) {
    if (found.error.status === 404) throw data(null, { status: 404, headers: responseHeaders })
    throw data(found.error.problem ?? null, { status: failureStatus(found.error), headers: responseHeaders })
  }
  const report = found.data
  const [items, project, members, packages, pdfSize] = await Promise.all([
    api.GET('/api/reports/{reportId}/items', { path: { reportId: params.reportId }, query: new URLSearchParams(cursorQuery(position)) }),
    api.GET('/api/projects/{id}', { path: { id: report.projectId } }),
    api.GET('/api/members'),
    api.GET('/api/projects/{id}/packages', { path: { id: report.projectId } }),
    api.GET('/api/exports/estimate', { query: new URLSearchParams({ kind: 'report-pdf', report: report.id }) }),
  ])
  const failed = [items, project, members, packages].find((result) => !result.ok)
  return data(
    {
      report,
      position,
      items: items.ok ? items.data : null,
      projectArchived: project.ok ? project.data.status === 'archived' : false,
      members: members.ok ? members.data.items : [],
      packages: packages.ok ? packages.data.items : [],
      renaming: url.searchParams.has('rename'),
      // A report too large to stream is exported as a job (docs/exports.md); without the answer, the PDF streams as before.
      pdfJob: pdfSize.ok && pdfSize.data.asJob ? pdfSize.data : null,
      loadNotice: failed && !failed.ok ? noticeOf(failed.error) : null,
    },
    { headers: responseHeaders },
  )
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const url = new URL(request.url)
  url.searchParams.delete('rename')
  const back = `${url.pathname}${url.search}`
  const intent = String(formData.get('intent') ?? '')
  switch (intent) {
    case 'rename': {
      const submission = parseWithZod(formData, { schema: ReportRenameSchema })
      if (submission.status !== 'success') return invalidForm(intent, submission)
      // An emptied title clears it: the API stores an empty title as none.
      const result = await api.PATCH('/api/reports/{id}', { path: { id: params.reportId }, body: { title: submission.value.title ?? '', expectedRevision: revisionFromForm(formData.get('expectedRevision')) } })
      if (!result.ok) return formFailure(intent, submission, result.error, responseHeaders)
      await setFlash(responseHeaders, { tone: 'success', message: `Report saved as “${reportTitle(result.data.title)}”.` })
      throw redirect(back, { headers: responseHeaders })
    }
    case 'archive':
    case 'unarchive': {
      const path = { id: params.reportId }
      const result = intent === 'archive' ? await api.POST('/api/reports/{id}/archive', { path }) : await api.POST('/api/reports/{id}/unarchive', { path })
      if (!result.ok) return noticeFailure(intent, result.error, responseHeaders)
      const name = reportTitle(result.data.title)
      await setFlash(responseHeaders, {
        tone: 'success',
        message: intent === 'archive' ? `“${name}” archived. It takes no new items.` : `“${name}” is active again.`,
      })
      throw redirect(back, { headers: responseHeaders })
    }
    case 'add-item': {
      const submission = parseWithZod(formData, { schema: ItemCreateSchema })
      if (submission.status !== 'success') return invalidForm(intent, submission)
      const result = await api.POST('/api/reports/{reportId}/items', { path: { reportId: params.reportId }, body: submission.value, idempotencyKey: true })
      if (!result.ok) return formFailure(intent, submission, result.error, responseHeaders)
      await setFlash(responseHeaders, { tone: 'success', message: `Item ${result.data.number} “${result.data.title}” added.` })
      throw redirect(back, { headers: responseHeaders })
    }
    case EXPORT_JOB_INTENT: {
      const failed = await startBackgroundExport(api, responseHeaders, formData, { kind: 'report-pdf', report: params.reportId })
      return noticeFailure(intent, failed.error, responseHeaders)
    }
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

export default function ReportPage({ loaderData }: Route.ComponentProps) {
  useLiveRevalidation(liveMatch.reporting)
  const { report, position, items, projectArchived, members, packages, renaming, loadNotice, pdfJob } = loaderData
  const actionData = useActionData<typeof action>()
  const location = useLocation()
  const locale = useLocale()
  const can = useReportingAbilities()
  const title = reportTitle(report.title)
  const archived = report.status === 'archived'
  const takesItems = !archived && !projectArchived
  const withoutRename = new URLSearchParams(location.search)
  withoutRename.delete('rename')
  const pagePath = `${location.pathname}${withoutRename.size > 0 ? `?${withoutRename}` : ''}`
  const renamePath = `${location.pathname}?${new URLSearchParams([...withoutRename, ['rename', '1']])}`
  const notice = actionData?.notice ?? loadNotice

  return (
    <>
      <PageHeader
        title={title}
        description={
          <>
            Project{' '}
            <Link to={`/reports?projectId=${encodeURIComponent(report.projectId)}`} className="text-primary-strong underline underline-offset-2">
              {projectTitle(report.projectTitle)}
            </Link>
            {` · created ${report.createdBy ? `by ${report.createdBy.displayName} ` : ''}on ${formatDate(report.createdAtUtc, locale)}`}
          </>
        }
        actions={<ReportActions report={report} pdfJob={pdfJob} renameTo={renamePath} canRename={can.write} canArchive={can.archiveReport(report)} />}
      />
      {notice ? (
        <Banner tone="critical" title="That did not work" correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      {archived || projectArchived ? (
        <Banner tone="warning" title={archived ? 'This report is archived' : 'Its project is archived'} className="mb-6">
          It stays readable, but takes no new items.
        </Banner>
      ) : null}
      {renaming && can.write ? <ReportRenameForm report={report} revision={revisionFor(actionData, 'rename', undefined, report.revision)} cancelTo={pagePath} lastResult={resultFor(actionData, 'rename')} /> : null}
      <div className="flex flex-col gap-10">
        <Section title="Items" description="In the order they were recorded.">
          {items ? (
            <ReportItemsTable
              items={items.items}
              packages={packages}
              pagination={cursorPagination(position, items.nextCursor, 'Items pages')}
              emptyState={
                <EmptyState heading="No items yet" headingLevel={3}>
                  {can.write && takesItems ? 'Add the first one with the form below.' : 'Nobody has recorded an item on this report.'}
                </EmptyState>
              }
            />
          ) : null}
        </Section>
        {can.write && takesItems ? (
          <Section title="Add item" description="Only the title is required; you can fill in the rest later.">
            <div className="max-w-3xl">
              <ReportAddItemForm
                key={location.key}
                members={members}
                packages={packages.filter((pkg) => pkg.active)}
                lastResult={resultFor(actionData, 'add-item')}
              />
            </div>
          </Section>
        ) : null}
      </div>
    </>
  )
}

function ReportActions({
  report,
  pdfJob,
  renameTo,
  canRename,
  canArchive,
}: {
  report: Report
  pdfJob: ExportEstimate | null
  renameTo: string
  canRename: boolean
  canArchive: boolean
}) {
  const title = reportTitle(report.title)
  return (
    <div className="flex flex-wrap items-start gap-2">
      {/* A file download, not a screen: a plain link the browser saves; every reader may print it. A large one is prepared in the background. */}
      {pdfJob ? (
        <BackgroundExportForm label="Report PDF" estimate={pdfJob} />
      ) : (
        <a href={`/api/reports/${encodeURIComponent(report.id)}/pdf`} download className={buttonClasses({ variant: 'secondary' })}>
          Report PDF
        </a>
      )}
      {canRename ? (
        <ButtonLink to={renameTo} variant="secondary">
          Rename
        </ButtonLink>
      ) : null}
      {canArchive && report.status === 'active' ? (
        <ConfirmDialog
          triggerLabel="Archive report…"
          title={`Archive “${title}”?`}
          confirmLabel="Yes, archive report"
          pendingLabel="Archiving…"
          intent="archive"
        >
          It takes no new items; its items stay readable. It can be unarchived.
        </ConfirmDialog>
      ) : null}
      {canArchive && report.status === 'archived' ? (
        <ConfirmDialog
          triggerLabel="Unarchive report…"
          title={`Unarchive “${title}”?`}
          confirmLabel="Yes, unarchive report"
          pendingLabel="Unarchiving…"
          intent="unarchive"
          tone="primary"
        >
          It takes new items again.
        </ConfirmDialog>
      ) : null}
    </div>
  )
}

export function meta({ data: loaderData }: Route.MetaArgs) {
  const title = loaderData ? reportTitle(loaderData.report.title) : 'Report'
  return [{ title: `${title} · Site Portal` }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict

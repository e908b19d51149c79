import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import { data, useActionData } from 'react-router'
import { TransmittalFilter, TransmittalList } from '~/components/doc-control/transmittal-list'
import { NUMBERING_INTENT, TransmittalNumberingSection } from '~/components/doc-control/transmittal-numbering-form'
import { wizardPage } from '~/components/doc-control/transmittal-paths'
import { type ReportingActionData, resultFor, revisionFor } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { buttonClasses } from '~/components/ui/button'
import { ButtonLink } from '~/components/ui/button-link'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { createServerApi } from '~/lib/api.server'
import { useLocale } from '~/root'
import { deferred } from '~/components/ui/deferred'
import type { Route } from './+types/transmittals'
import { requireProjectId } from './registers.server'
import { loadTransmittals, saveNumbering, statusFilterOf, transmittalsJobFilters } from './transmittals.server'
import { exportJobKindOf } from '~/lib/exports/intents'
import { noticeFailure } from '~/components/reporting/report-action'
import { startBackgroundExport } from '~/lib/exports/start-export.server'
import type { ExportEstimate } from '~/lib/exports/types'

// The job form of an export too large to stream, fetched only when the screen shows it (app/components/ui/deferred.tsx).
const loadExportForm = async () => (await import('~/components/exports/background-export-form')).BackgroundExportForm
const BackgroundExportForm = deferred(loadExportForm, import.meta.env.SSR ? await loadExportForm() : undefined, { fetchNow: false })

/**
 * A project's transmittals (docs/doc-control.md "Transmittals"): number, subject, purpose, status,
 * when sent and how many recipients acknowledged, newest first, with a status filter and paging.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  return data(await loadTransmittals(api, request, responseHeaders), { headers: responseHeaders })
}

/** The forms of the page: how the project numbers its transmittals; an export too large to stream, as a job. */
export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const projectId = requireProjectId(request)
  const intent = String(formData.get('intent') ?? '')
  const exportKind = exportJobKindOf(intent, TRANSMITTALS_EXPORTS.map((format) => format.kind))
  if (exportKind) {
    const failed = await startBackgroundExport(api, responseHeaders, formData, { kind: exportKind, ...transmittalsJobFilters(projectId, statusFilterOf(request)) })
    return noticeFailure(intent, failed.error, responseHeaders)
  }
  if (intent !== NUMBERING_INTENT) throw data('Unknown intent', { status: 400 })
  return saveNumbering(api, projectId, formData, responseHeaders, `/doc-control/transmittals?${new URLSearchParams({ projectId })}`)
}

export default function Transmittals({ loaderData }: Route.ComponentProps) {
  const { projects, projectId, status, page, list, hasNext, numbering, exportJob, notice: loadNotice } = loaderData
  const actionData = useActionData<typeof action>() as ReportingActionData | undefined
  const notice = actionData?.notice ?? loadNotice
  const locale = useLocale()
  useLiveRevalidation((change) => change.entityType === 'Transmittal')
  return (
    <>
      <PageHeader
        title="Transmittals"
        description="What was sent to whom and why, and who has acknowledged it."
        actions={
          projectId ? (
            <>
              <ButtonLink to={wizardPage(projectId)}>Issue documents</ButtonLink>
              <TransmittalsExports projectId={projectId} status={status} exportJob={exportJob} />
            </>
          ) : undefined
        }
      />
      {notice ? (
        <Banner tone="critical" title={actionData?.notice ? 'That did not work' : 'The transmittals could not be listed'} correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      {projectId ? (
        <div className="flex flex-col gap-4">
          <TransmittalFilter projectId={projectId} status={status} />
          {list ? <TransmittalList items={list} locale={locale} page={page} hasNext={hasNext} filtered={status !== null} /> : null}
          {numbering ? <TransmittalNumberingSection
              key={numbering.format}
              numbering={numbering}
              revision={revisionFor(actionData, NUMBERING_INTENT, undefined, numbering.revision)}
              lastResult={resultFor(actionData, NUMBERING_INTENT)}
            /> : null}
        </div>
      ) : (
        <EmptyState heading={projects.length > 0 ? 'Choose a project' : 'No projects yet'}>
          {projects.length > 0 ? 'Its transmittals are listed here.' : 'Transmittals belong to a project. Once your organisation has one, choose it here.'}
        </EmptyState>
      )}
    </>
  )
}

/** The two formats: links while they stream, the buttons of one job form above EXPORT_JOB_ITEMS transmittals. */
const TRANSMITTALS_EXPORTS = [
  { kind: 'transmittals-csv', label: 'Export CSV', format: 'csv' },
  { kind: 'transmittals-xlsx', label: 'Export Excel', format: 'xlsx' },
] as const

/** Downloads of every transmittal the filter selects: plain links the browser saves, or a form that prepares one in the background. */
function TransmittalsExports({ projectId, status, exportJob }: { projectId: string; status: string | null; exportJob: ExportEstimate | null }) {
  if (exportJob) return <BackgroundExportForm label="Export transmittals" estimate={exportJob} formats={TRANSMITTALS_EXPORTS} />
  return (
    <>
      {TRANSMITTALS_EXPORTS.map((format) => (
        <a key={format.kind} href={transmittalsExportHref(projectId, status, format.format)} download className={buttonClasses({ variant: 'secondary' })}>
          {format.label}
        </a>
      ))}
    </>
  )
}

/** Every transmittal the status filter selects, as a spreadsheet (GET /api/projects/{projectId}/transmittals/export). */
function transmittalsExportHref(projectId: string, status: string | null, format: 'csv' | 'xlsx'): string {
  const params = new URLSearchParams({ format })
  if (status) params.set('status', status)
  return `/api/projects/${encodeURIComponent(projectId)}/transmittals/export?${params.toString()}`
}

export function meta() {
  return [{ title: 'Transmittals · Document control · Site Portal' }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict

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
import type { Route } from './+types/transmittals'
import { requireProjectId } from './registers.server'
import { loadTransmittals, saveNumbering } from './transmittals.server'

/**
 * A project's transmittals (docs/doc-control.md "Transmittals"): number, subject, purpose, status,
 * when sent and how many recipients acknowledged, newest first, with a status filter and paging.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  return data(await loadTransmittals(api, request, responseHeaders), { headers: responseHeaders })
}

/** The one form of the page: how the project numbers its transmittals. */
export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const projectId = requireProjectId(request)
  if (String(formData.get('intent') ?? '') !== NUMBERING_INTENT) throw data('Unknown intent', { status: 400 })
  return saveNumbering(api, projectId, formData, responseHeaders, `/doc-control/transmittals?${new URLSearchParams({ projectId })}`)
}

export default function Transmittals({ loaderData }: Route.ComponentProps) {
  const { projects, projectId, status, page, list, hasNext, numbering, notice: loadNotice } = loaderData
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
              {/* Downloads of every transmittal the filter selects: plain links the browser saves. */}
              <a href={transmittalsExportHref(projectId, status, 'csv')} download className={buttonClasses({ variant: 'secondary' })}>
                Export CSV
              </a>
              <a href={transmittalsExportHref(projectId, status, 'xlsx')} download className={buttonClasses({ variant: 'secondary' })}>
                Export Excel
              </a>
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

import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import { data, Form, redirect, useActionData } from 'react-router'
import { MatrixTable } from '~/components/doc-control/matrix-table'
import { useCanManage } from '~/components/doc-control/parties-abilities'
import { loadProjectChoice } from '~/components/doc-control/project-choice.server'
import { conflictRevision, noticeFailure, noticeOf, type ReportingActionData } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { Button } from '~/components/ui/button'
import { ButtonLink } from '~/components/ui/button-link'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { SelectField } from '~/components/ui/select-field'
import { createServerApi } from '~/lib/api.server'
import { type MatrixEntry, type Party, RESPONSIBILITIES, type Responsibility } from '~/lib/doc-control/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus } from '~/lib/forms'
import { revisionFromForm } from '~/lib/schemas/edit-conflict'
import type { Route } from './+types/matrix'
import { projectAccess, requireProjectId } from './registers.server'

/**
 * Responsibility matrix (docs/doc-control.md "Screens"): the project's disciplines (its naming
 * standard's Role codes) against its parties, each cell produce, review, both or neither; for any
 * document type, or one type (`?docType=DR`), whose cells win over the any-type ones when a review
 * proposes reviewers. Managers tick the cells and save them as one form.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const choice = await loadProjectChoice(api, request, responseHeaders)
  const docType = new URL(request.url).searchParams.get('docType') || null
  if (!choice.project) return data({ ...choice, docType, matrix: null, parties: [] as Party[], access: null, loadNotice: null }, { headers: responseHeaders })
  const [matrix, parties, access] = await Promise.all([
    api.GET('/api/projects/{id}/matrix', { path: { id: choice.project.id } }),
    api.GET('/api/projects/{id}/parties', { path: { id: choice.project.id } }),
    projectAccess(api, choice.project.id),
  ])
  const failed = !matrix.ok ? matrix.error : !parties.ok ? parties.error : null
  return data(
    { ...choice, docType, matrix: matrix.ok ? matrix.data : null, parties: parties.ok ? parties.data.items : [], access, loadNotice: failed ? noticeOf(failed) : null },
    { headers: responseHeaders },
  )
}

/** After a stale save (409 KR_EDIT_CONFLICT): the cells as the user ticked them, kept in the form. */
type MatrixActionData = ReportingActionData & { cells?: string[] | undefined }

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const projectId = requireProjectId(request)
  const intent = String(formData.get('intent') ?? '')
  if (intent !== 'save-matrix') throw data('Unknown intent', { status: 400 })
  const docType = String(formData.get('docType') ?? '') || null
  const ticked: MatrixEntry[] = formData.getAll('cell').flatMap((value) => {
    const [discipline, partyId, responsibility] = String(value).split('|')
    if (!discipline || !partyId || !(RESPONSIBILITIES as readonly string[]).includes(responsibility ?? '')) return []
    return [{ discipline, docType, partyId, responsibility: responsibility as Responsibility }]
  })
  // The form holds one type's cells: the other types' cells stay as they are.
  const current = await api.GET('/api/projects/{id}/matrix', { path: { id: projectId } })
  if (!current.ok) return noticeFailure('save-matrix', current.error, responseHeaders)
  const entries = [...current.data.entries.filter((e) => e.docType !== docType), ...ticked]
  // Saved against the matrix as the page showed it: a save by someone else since is a conflict, and the ticks come back as they were.
  const result = await api.PUT('/api/projects/{id}/matrix', { path: { id: projectId }, body: { entries, expectedRevision: revisionFromForm(formData.get('expectedRevision')) } })
  if (!result.ok) {
    const revision = conflictRevision(result.error)
    if (revision === undefined) return noticeFailure('save-matrix', result.error, responseHeaders)
    const cells = formData.getAll('cell').map(String)
    return data<MatrixActionData>({ intent: 'save-matrix', notice: noticeOf(result.error), revision, cells }, { status: failureStatus(result.error), headers: responseHeaders })
  }
  await setFlash(responseHeaders, { tone: 'success', message: 'Responsibility matrix saved.' })
  const back = new URLSearchParams({ projectId })
  if (docType) back.set('docType', docType)
  throw redirect(`/doc-control/matrix?${back}`, { headers: responseHeaders })
}

export default function Matrix({ loaderData }: Route.ComponentProps) {
  const { project, docType, matrix, parties, access, loadNotice } = loaderData
  const actionData = useActionData<typeof action>() as MatrixActionData | undefined
  const canManage = useCanManage(access)
  const notice = actionData?.notice ?? loadNotice
  const typeLabel = (code: string) => {
    const found = matrix?.docTypes.find((t) => t.code === code)
    return found?.description ? `${found.code} ${found.description}` : code
  }
  const scopeLabel = docType ? typeLabel(docType) : 'any document type'
  return (
    <>
      <PageHeader title="Responsibility matrix" description="Who produces and who reviews each discipline’s documents. Starting a review proposes its reviewers from here." />
      {!project ? (
        <EmptyState heading="Choose a project">Its responsibility matrix is shown here once you open it.</EmptyState>
      ) : (
        <div className="flex flex-col gap-6">
          {notice ? (
            <Banner tone="critical" title="That did not work" correlationId={notice.correlationId}>
              {notice.message}
            </Banner>
          ) : null}
          {matrix ? (
            <Form method="get" action="/doc-control/matrix" aria-label="Document type" className="flex flex-col gap-3 sm:flex-row sm:items-end">
              <input type="hidden" name="projectId" value={project.id} />
              <SelectField
                label="Document type"
                className="sm:min-w-72"
                help="A type’s own cells win over the any-type cells for its documents."
                selectProps={{ name: 'docType', id: 'matrix-doc-type', defaultValue: docType ?? '' }}
                placeholder="Any document type"
                options={matrix.docTypes.map((t) => ({ value: t.code, label: typeLabel(t.code) }))}
              />
              <Button type="submit" variant="secondary">
                Show
              </Button>
            </Form>
          ) : null}
          {matrix && parties.length === 0 ? (
            <EmptyState
              heading="No parties yet"
              action={
                <ButtonLink to={`/doc-control/parties?${new URLSearchParams({ projectId: project.id })}`} variant="secondary">
                  Go to parties
                </ButtonLink>
              }
            >
              The matrix names parties: add the project’s parties first.
            </EmptyState>
          ) : null}
          {matrix && parties.length > 0 && matrix.disciplines.length === 0 ? (
            <EmptyState heading="No disciplines">The project’s naming standard lists no Role codes, and no document names one yet.</EmptyState>
          ) : null}
          {matrix && parties.length > 0 && matrix.disciplines.length > 0 ? (
            <MatrixTable
              disciplines={matrix.disciplines}
              parties={parties}
              entries={matrix.entries}
              docType={docType}
              scopeLabel={scopeLabel}
              canManage={canManage}
              revision={actionData?.revision ?? matrix.revision}
              kept={actionData?.cells}
            />
          ) : null}
        </div>
      )}
    </>
  )
}

export function meta() {
  return [{ title: 'Responsibility matrix · Document control · Site Portal' }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict

import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import { type SubmissionResult, getFormProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data, Form, Link, redirect, useActionData } from 'react-router'
import { ColourFields, chosenColours, formFieldErrors, OrganisationColoursSchema } from '~/components/drawings/overlay-forms'
import { PinLegend } from '~/components/drawings/sheet-view'
import { loaded } from '~/components/reporting/item-action'
import { conflictRevision, noticeOf, type ReportingActionData, revisionFor } from '~/components/reporting/report-action'
import { cursorPagination, cursorPosition, cursorQuery } from '~/components/reporting/report-paging'
import { Badge } from '~/components/ui/badge'
import { Banner } from '~/components/ui/banner'
import { CsrfInput } from '~/components/ui/csrf-input'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { FormError } from '~/components/ui/form-error'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { SubmitButton } from '~/components/ui/submit-button'
import { createServerApi } from '~/lib/api.server'
import type { PinColours } from '~/lib/documents/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, formMessageFor } from '~/lib/forms'
import { revisionFromForm } from '~/lib/schemas/edit-conflict'
import { type Project, projectTitle } from '~/lib/reporting/types'
import type { Route } from './+types/drawings-overlay'
import { RevisionInput } from '~/components/ui/revision-input'

/**
 * Administration › Drawings overlay (spec §2): the organisation's pin colours by item status, and
 * the projects, each with its own page for its colours and its sheets. Administrators only: the
 * backend answers 403 to anyone else, shown as the error screen.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const url = new URL(request.url)
  const position = cursorPosition(url.searchParams)
  const { api, responseHeaders } = createServerApi(request, context)
  const query = new URLSearchParams({ status: 'all', ...cursorQuery(position) })
  const [overlay, projects] = await Promise.all([api.GET('/api/admin/drawings-overlay'), api.GET('/api/projects', { query: new URLSearchParams(query) })])
  return data(
    { overlay: loaded(overlay, responseHeaders), projects: projects.ok ? projects.data : null, projectsNotice: projects.ok ? null : noticeOf(projects.error), position },
    { headers: responseHeaders },
  )
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const intent = String(formData.get('intent') ?? '')
  if (intent !== 'colours') throw data('Unknown intent', { status: 400 })
  const submission = parseWithZod(formData, { schema: OrganisationColoursSchema })
  if (submission.status !== 'success') return data<ReportingActionData>({ intent, result: submission.reply() }, { status: 400 })
  // Saved against the colours as the page showed them: a save by someone else since is a conflict, the chosen colours kept.
  const expectedRevision = revisionFromForm(formData.get('expectedRevision'))
  const result = await api.PUT('/api/admin/drawings-overlay', { body: { colours: chosenColours(submission.value), expectedRevision } })
  if (!result.ok) {
    const fieldErrors = formFieldErrors(result.error.problem?.errors ?? {})
    const formErrors = Object.keys(fieldErrors).length > 0 ? [] : [formMessageFor(result.error)]
    const reply = { intent, result: submission.reply({ formErrors, fieldErrors }), revision: conflictRevision(result.error) }
    return data<ReportingActionData>(reply, { status: failureStatus(result.error), headers: responseHeaders })
  }
  await setFlash(responseHeaders, { tone: 'success', message: 'Pin colours saved. Projects without their own colours use them.' })
  throw redirect(new URL(request.url).pathname + new URL(request.url).search, { headers: responseHeaders })
}

export default function DrawingsOverlay({ loaderData }: Route.ComponentProps) {
  const { overlay, projects, projectsNotice, position } = loaderData
  const actionData = useActionData<typeof action>()
  const columns: Array<DataTableColumn<Project>> = [
    {
      key: 'title',
      header: 'Project',
      rowHeader: true,
      cell: (project) => (
        <Link to={`/admin/projects/${project.id}/drawings-overlay`} className="text-primary-strong underline underline-offset-2">
          {projectTitle(project.title)}
        </Link>
      ),
    },
    { key: 'code', header: 'Code', cell: (project) => project.code ?? '—' },
    { key: 'status', header: 'Status', hideOnMobile: true, cell: (project) => (project.status === 'archived' ? <Badge>Archived</Badge> : <Badge tone="success">Active</Badge>) },
  ]
  return (
    <>
      <PageHeader title="Drawings overlay" description="How items show on drawings: pin colours by item status, and each project’s sheets." />
      <div className="flex flex-col gap-10">
        <Section title="Pin colours" description="For every project that has no colours of its own.">
          <PinLegend colours={overlay.colours} />
          {/* Saved colours remount the form, so its pickers start from them and the text boxes empty. */}
          <ColoursForm
            key={Object.values(overlay.colours).join()}
            colours={overlay.colours}
            revision={revisionFor(actionData, 'colours', undefined, overlay.revision)}
            lastResult={actionData?.result}
          />
        </Section>
        <Section title="Projects" description="Open a project to give it its own colours and to set up its sheets: pinning, scale and rotation.">
          {projectsNotice ? (
            <Banner tone="critical" title="The projects could not be loaded" correlationId={projectsNotice.correlationId}>
              {projectsNotice.message}
            </Banner>
          ) : null}
          {projects ? (
            <DataTable
              caption="Projects"
              captionHidden
              columns={columns}
              rows={projects.items}
              rowKey={(project) => project.id}
              pagination={cursorPagination(position, projects.nextCursor, 'Projects pages')}
              emptyState={<EmptyState heading="No projects yet" headingLevel={3}>Projects created in Projects are listed here.</EmptyState>}
            />
          ) : null}
        </Section>
      </div>
    </>
  )
}

/** `revision`: the overlay's revision this form saves against (expectedRevision), the loaded one or the current one after a conflict. */
function ColoursForm({ colours, revision, lastResult }: { colours: PinColours; revision: number; lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: 'organisation-colours',
    lastResult,
    defaultValue: { colours },
    defaultNoValidate: false,
    constraint: getZodConstraint(OrganisationColoursSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: OrganisationColoursSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} className="flex max-w-2xl flex-col gap-5">
      <CsrfInput />
      <RevisionInput revision={revision} />
      <FormError id={form.errorId} errors={form.errors} />
      <ColourFields picked={fields.colours.getFieldset()} typed={fields.hex.getFieldset()} now={colours} />
      <SubmitButton intent="colours" pendingLabel="Saving…" className="self-start">
        Save colours
      </SubmitButton>
    </Form>
  )
}

export function meta() {
  return [{ title: 'Drawings overlay · Site Portal' }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict

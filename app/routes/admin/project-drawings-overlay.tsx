import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import { type FieldMetadata, type SubmissionResult, getFormProps, getInputProps, getSelectProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data, Form, Link, redirect, useActionData } from 'react-router'
import { ColourFields, chosenColours, formFieldErrors, ProjectOverlaySchema, ROTATIONS, SCALE_MAX } from '~/components/drawings/overlay-forms'
import { PinLegend } from '~/components/drawings/sheet-view'
import { loaded } from '~/components/reporting/item-action'
import { conflictRevision, noticeOf, type ReportingActionData, revisionFor } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { CheckboxField } from '~/components/ui/checkbox-field'
import { CsrfInput } from '~/components/ui/csrf-input'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import { createServerApi } from '~/lib/api.server'
import type { DrawingOverlay, DrawingSheet } from '~/lib/documents/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, formMessageFor } from '~/lib/forms'
import { revisionFromForm } from '~/lib/schemas/edit-conflict'
import { projectTitle } from '~/lib/reporting/types'
import type { Route } from './+types/project-drawings-overlay'
import { RevisionInput } from '~/components/ui/revision-input'

/**
 * Administration › a project's drawings overlay: whose pin colours its pins use (the
 * organisation's or its own), and its sheets, each offered for pinning or not, with its scale and
 * the rotation it is shown at. One Save form for all of it; problems come back by their fields.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const id = encodeURIComponent(params.projectId)
  const [overlay, project] = await Promise.all([api.GET('/api/admin/projects/{id}/drawings-overlay', { path: { id } }), api.GET('/api/projects/{id}', { path: { id } })])
  return data({ overlay: loaded(overlay, responseHeaders), project: loaded(project, responseHeaders) }, { headers: responseHeaders })
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const intent = String(formData.get('intent') ?? '')
  if (intent !== 'save') throw data('Unknown intent', { status: 400 })
  const submission = parseWithZod(formData, { schema: ProjectOverlaySchema })
  if (submission.status !== 'success') return data<ReportingActionData>({ intent, result: submission.reply() }, { status: 400 })
  const value = submission.value
  const body = {
    colours: value.colourSource === 'project' ? chosenColours(value) : null,
    sheets: (value.sheets ?? []).map((sheet) => ({ documentId: sheet.documentId, pinning: sheet.pinning ?? false, scale: sheet.scale ?? null, rotation: sheet.rotation as (typeof ROTATIONS)[number] })),
  }
  // Saved against the overlay as the page showed it: a save by someone else since is a conflict, what was chosen kept.
  const expectedRevision = revisionFromForm(formData.get('expectedRevision'))
  const result = await api.PUT('/api/admin/projects/{id}/drawings-overlay', { path: { id: params.projectId }, body: { ...body, expectedRevision } })
  if (!result.ok) {
    if (result.error.status === 403) return data<ReportingActionData>({ intent, result: submission.reply(), notice: noticeOf(result.error) }, { status: 403, headers: responseHeaders })
    const fieldErrors = formFieldErrors(result.error.problem?.errors ?? {})
    const formErrors = Object.keys(fieldErrors).length > 0 ? [] : [formMessageFor(result.error)]
    const reply = { intent, result: submission.reply({ formErrors, fieldErrors }), revision: conflictRevision(result.error) }
    return data<ReportingActionData>(reply, { status: failureStatus(result.error), headers: responseHeaders })
  }
  await setFlash(responseHeaders, { tone: 'success', message: 'Drawings overlay of the project saved.' })
  throw redirect(new URL(request.url).pathname, { headers: responseHeaders })
}

export default function ProjectDrawingsOverlay({ loaderData }: Route.ComponentProps) {
  const { overlay, project } = loaderData
  const actionData = useActionData<typeof action>()
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-3 text-sm">
        <Link to="/admin/drawings-overlay" className="text-primary-strong underline underline-offset-2">
          Drawings overlay
        </Link>
      </nav>
      <PageHeader title={`Drawings of ${projectTitle(project.title)}`} description="Whose pin colours this project’s pins use, and how each of its sheets is shown." />
      {actionData?.notice ? (
        <Banner tone="critical" title="That did not work" correlationId={actionData.notice.correlationId} className="mb-6">
          {actionData.notice.message}
        </Banner>
      ) : null}
      {/* A save remounts the form, so it starts from what was stored. */}
      <OverlayForm key={JSON.stringify(overlay)} overlay={overlay} revision={revisionFor(actionData, 'save', undefined, overlay.revision)} lastResult={actionData?.result} />
    </>
  )
}

/** `revision`: the overlay's revision this form saves against (expectedRevision), the loaded one or the current one after a conflict. */
function OverlayForm({ overlay, revision, lastResult }: { overlay: DrawingOverlay; revision: number; lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: 'project-overlay',
    lastResult,
    defaultValue: {
      colourSource: overlay.inherited ? 'organisation' : 'project',
      colours: overlay.colours,
      sheets: overlay.sheets.map((sheet) => ({ documentId: sheet.documentId, pinning: sheet.pinning, scale: sheet.scale ?? '', rotation: String(sheet.rotation) })),
    },
    defaultNoValidate: false,
    constraint: getZodConstraint(ProjectOverlaySchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ProjectOverlaySchema }),
  })
  const sheetFields = fields.sheets.getFieldList()
  type Row = { sheet: DrawingSheet; field: ReturnType<FieldMetadata<{ documentId: string; pinning?: boolean; scale?: string; rotation: number }>['getFieldset']> }
  const rows: Row[] = overlay.sheets.flatMap((sheet, index) => {
    const field = sheetFields[index]
    return field ? [{ sheet, field: field.getFieldset() }] : []
  })
  const columns: Array<DataTableColumn<Row>> = [
    {
      key: 'drawing',
      header: 'Drawing',
      rowHeader: true,
      cell: ({ sheet, field }) => (
        <>
          <input {...getInputProps(field.documentId, { type: 'hidden' })} />
          <span className="font-medium">{sheet.number}</span>
          <span className="block text-muted">{sheet.title}</span>
          {field.documentId.errors ? <span className="block text-critical-strong">{field.documentId.errors.join(' ')}</span> : null}
        </>
      ),
    },
    { key: 'revision', header: 'Revision', hideOnMobile: true, cell: ({ sheet }) => sheet.currentRevision?.code ?? '—' },
    {
      key: 'pinning',
      header: 'Pinning',
      cell: ({ sheet, field }) => (
        <CheckboxField label={<>Offer for pins<span className="sr-only"> on {sheet.number}</span></>} inputProps={getInputProps(field.pinning, { type: 'checkbox' })} errors={field.pinning.errors} />
      ),
    },
    {
      key: 'scale',
      header: 'Scale',
      cell: ({ sheet, field }) => (
        <Field
          label={<span className="sr-only">Scale of {sheet.number}</span>}
          className="w-32"
          inputProps={{ ...getInputProps(field.scale, { type: 'text' }), placeholder: 'e.g. 1:100', autoComplete: 'off', maxLength: SCALE_MAX + 5 }}
          errors={field.scale.errors}
        />
      ),
    },
    {
      key: 'rotation',
      header: 'Rotation',
      cell: ({ sheet, field }) => (
        <SelectField
          label={<span className="sr-only">Rotation of {sheet.number}</span>}
          className="w-32"
          selectProps={getSelectProps(field.rotation)}
          options={ROTATIONS.map((rotation) => ({ value: String(rotation), label: `${rotation}°` }))}
          errors={field.rotation.errors}
        />
      ),
    },
  ]
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-10">
      <CsrfInput />
      <RevisionInput revision={revision} />
      <FormError id={form.errorId} errors={form.errors} />
      <Section title="Pin colours" description="By item status. A project uses the organisation’s colours unless it has its own.">
        <PinLegend colours={overlay.colours} />
        <SelectField
          label="Colours"
          help="The colours below apply when the project has its own."
          className="max-w-md"
          selectProps={getSelectProps(fields.colourSource)}
          options={[
            { value: 'organisation', label: 'The organisation’s colours' },
            { value: 'project', label: 'This project’s own colours (below)' },
          ]}
          errors={fields.colourSource.errors}
        />
        <div className="max-w-2xl">
          <ColourFields picked={fields.colours.getFieldset()} typed={fields.hex.getFieldset()} now={overlay.colours} />
        </div>
      </Section>
      <Section title="Sheets" description="The project’s drawings: documents whose current revision is a sheet. Rotation turns a sheet clockwise wherever it is shown.">
        <DataTable
          caption="Sheets"
          captionHidden
          columns={columns}
          rows={rows}
          rowKey={({ sheet }) => sheet.documentId}
          emptyState={
            <EmptyState heading="No drawings yet" headingLevel={3} action={<Link to="/documents" className="text-primary-strong underline underline-offset-2">Open Documents</Link>}>
              No drawings in this project yet: upload a sheet (PDF or image) in Documents.
            </EmptyState>
          }
        />
      </Section>
      <SubmitButton intent="save" pendingLabel="Saving…" className="self-start">
        Save
      </SubmitButton>
    </Form>
  )
}

export function meta({ data: loaderData }: Route.MetaArgs) {
  return [{ title: loaderData ? `Drawings of ${projectTitle(loaderData.project.title)} · Site Portal` : 'Project drawings overlay · Site Portal' }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict

import { type SubmissionResult, getFormProps, getInputProps, getSelectProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { firstInvalidField } from '~/components/reporting/report-action'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import { type Project, projectTitle } from '~/lib/reporting/types'
import { ReportCreateSchema } from '~/lib/schemas/reporting-projects'

export type ReportCreateFormProps = {
  /** Active projects only: an archived project takes no new reports. */
  projects: readonly Project[]
  /** Preselected, e.g. the project the list is filtered by. */
  projectId: string | undefined
  lastResult: SubmissionResult<string[]> | undefined
}

/** The "New report" form of /reports (intent `create`). */
export function ReportCreateForm({ projects, projectId, lastResult }: ReportCreateFormProps) {
  const [form, fields] = useForm({
    id: 'report-create',
    lastResult,
    defaultValue: { projectId: projectId ?? '' },
    defaultNoValidate: false,
    constraint: getZodConstraint(ReportCreateSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ReportCreateSchema }),
  })
  const focus = firstInvalidField(lastResult, ['projectId', 'title'])
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
      <CsrfInput />
      <FormError id={form.errorId} errors={form.errors} />
      <SelectField
        label="Project"
        placeholder="Choose a project"
        selectProps={{ ...getSelectProps(fields.projectId), autoFocus: focus === 'projectId' }}
        options={projects.map((project) => ({ value: project.id, label: projectTitle(project.title) }))}
        errors={fields.projectId.errors}
      />
      <Field
        label="Title"
        help="E.g. “Level 3 walk-through, 22 November”. Leave it empty to name it later."
        inputProps={{ ...getInputProps(fields.title, { type: 'text' }), autoComplete: 'off', autoFocus: focus === 'title' }}
        errors={fields.title.errors}
      />
      <SubmitButton intent="create" pendingLabel="Creating…" className="self-start">
        Create report
      </SubmitButton>
    </Form>
  )
}

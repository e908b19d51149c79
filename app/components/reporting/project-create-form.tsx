import { type SubmissionResult, getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { firstInvalidField } from '~/components/reporting/report-action'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { PROJECT_CODE_MAX, ProjectCreateSchema } from '~/lib/schemas/reporting-projects'

/** The "New project" form of /projects (intent `create`). */
export function ProjectCreateForm({ lastResult }: { lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: 'project-create',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(ProjectCreateSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ProjectCreateSchema }),
  })
  const focus = firstInvalidField(lastResult, ['title', 'code'])
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
      <CsrfInput />
      <FormError id={form.errorId} errors={form.errors} />
      <Field
        label="Title"
        help="Leave it empty to name it later; it shows as “Untitled Project”."
        inputProps={{ ...getInputProps(fields.title, { type: 'text' }), autoComplete: 'off', autoFocus: focus === 'title' }}
        errors={fields.title.errors}
      />
      <Field
        label="Code (optional)"
        help={`A short reference, e.g. RT-2026. At most ${PROJECT_CODE_MAX} characters.`}
        inputProps={{ ...getInputProps(fields.code, { type: 'text' }), autoComplete: 'off', spellCheck: false, autoFocus: focus === 'code' }}
        errors={fields.code.errors}
      />
      <SubmitButton intent="create" pendingLabel="Creating…" className="self-start">
        Create project
      </SubmitButton>
    </Form>
  )
}

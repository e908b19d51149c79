import { type SubmissionResult, getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { ButtonLink } from '~/components/ui/button-link'
import { Card } from '~/components/ui/card'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { type Project, projectTitle } from '~/lib/reporting/types'
import { PROJECT_CODE_MAX, ProjectRenameSchema } from '~/lib/schemas/reporting-projects'
import { RevisionInput } from '~/components/ui/revision-input'

export type ProjectRenameFormProps = {
  project: Project
  /** The revision this form saves against (expectedRevision): the loaded one, or the current one after a conflict. */
  revision: number
  lastResult: SubmissionResult<string[]> | undefined
  /** The list without `?edit=`, where Cancel goes. */
  cancelTo: string
}

/** The small edit form /projects?edit={id} shows above the list (intent `rename`). */
export function ProjectRenameForm({ project, revision, lastResult, cancelTo }: ProjectRenameFormProps) {
  const [form, fields] = useForm({
    id: `project-rename-${project.id}`,
    lastResult,
    defaultValue: { projectId: project.id, title: project.title ?? '', code: project.code ?? '' },
    defaultNoValidate: false,
    constraint: getZodConstraint(ProjectRenameSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ProjectRenameSchema }),
  })
  const headingId = `${form.id}-heading`
  return (
    <Card className="mb-6">
      <h2 id={headingId} className="mb-4 text-lg font-semibold break-words">
        Rename “{projectTitle(project.title)}”
      </h2>
      <Form method="post" {...getFormProps(form)} aria-labelledby={headingId} className="flex flex-col gap-4">
        <CsrfInput />
        <input {...getInputProps(fields.projectId, { type: 'hidden' })} />
        <RevisionInput revision={revision} />
        <FormError id={form.errorId} errors={[...(form.errors ?? []), ...(fields.projectId.errors ?? [])]} />
        <div className="grid gap-4 sm:grid-cols-2">
          <Field
            label="Title"
            help="Empty shows as “Untitled Project”."
            // The user asked to edit this project: take them straight to its title.
            inputProps={{ ...getInputProps(fields.title, { type: 'text' }), autoComplete: 'off', autoFocus: true }}
            errors={fields.title.errors}
          />
          <Field
            label="Code (optional)"
            help={`At most ${PROJECT_CODE_MAX} characters.`}
            inputProps={{ ...getInputProps(fields.code, { type: 'text' }), autoComplete: 'off', spellCheck: false }}
            errors={fields.code.errors}
          />
        </div>
        <div className="flex flex-wrap gap-2">
          <SubmitButton intent="rename" pendingLabel="Saving…">
            Save changes
          </SubmitButton>
          <ButtonLink to={cancelTo} variant="secondary">
            Cancel
          </ButtonLink>
        </div>
      </Form>
    </Card>
  )
}

import { type SubmissionResult, getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { ButtonLink } from '~/components/ui/button-link'
import { Card } from '~/components/ui/card'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import type { Report } from '~/lib/reporting/types'
import { ReportRenameSchema } from '~/lib/schemas/reporting-projects'
import { RevisionInput } from '~/components/ui/revision-input'

export type ReportRenameFormProps = {
  report: Report
  /** The revision this form saves against (expectedRevision): the loaded one, or the current one after a conflict. */
  revision: number
  lastResult: SubmissionResult<string[]> | undefined
  /** The report's page without `?rename`, where Cancel goes. */
  cancelTo: string
}

/** The small form /reports/{id}?rename=1 shows under the title (intent `rename`). */
export function ReportRenameForm({ report, revision, lastResult, cancelTo }: ReportRenameFormProps) {
  const [form, fields] = useForm({
    id: 'report-rename',
    lastResult,
    defaultValue: { title: report.title ?? '' },
    defaultNoValidate: false,
    constraint: getZodConstraint(ReportRenameSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ReportRenameSchema }),
  })
  const headingId = `${form.id}-heading`
  return (
    <Card className="mb-6">
      <h2 id={headingId} className="mb-4 text-lg font-semibold">
        Rename this report
      </h2>
      <Form method="post" {...getFormProps(form)} aria-labelledby={headingId} className="flex flex-col gap-4">
        <CsrfInput />
        <RevisionInput revision={revision} />
        <FormError id={form.errorId} errors={form.errors} />
        <Field
          label="Title"
          help="Empty shows as “Untitled Report”."
          // The user asked to rename the report: take them straight to its title.
          inputProps={{ ...getInputProps(fields.title, { type: 'text' }), autoComplete: 'off', autoFocus: true }}
          errors={fields.title.errors}
        />
        <div className="flex flex-wrap gap-2">
          <SubmitButton intent="rename" pendingLabel="Saving…">
            Save title
          </SubmitButton>
          <ButtonLink to={cancelTo} variant="secondary">
            Cancel
          </ButtonLink>
        </div>
      </Form>
    </Card>
  )
}

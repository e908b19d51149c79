import { getFormProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { firstInvalidField } from '~/components/reporting/report-action'
import { CsrfInput } from '~/components/ui/csrf-input'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { FileUploadField } from '~/islands/upload/file-upload-field'
import { nextRevisionCode } from '~/lib/documents/rules'
import { RevisionSchema } from '~/lib/schemas/documents'
import { RevisionFields } from './revision-fields'
import type { ResumableForm } from './use-resumable-form'

export type RevisionFormProps = {
  /** The current revision's code and the document's status, for the code the form suggests. */
  currentCode: string | null
  /** Every code the document has had: the next P after a C counts on from the highest P. */
  codes?: readonly string[]
  status: string
  lastResult: SubmissionResult<string[]> | undefined
  resumable: ResumableForm
}

/**
 * "New revision" of a document's page (intent `revision`): the code comes prefilled with the next
 * one for the document's status (P01 → P02, a published status → C01), the file goes with the form
 * (no JavaScript) or through the upload island.
 */
export function RevisionForm({ currentCode, codes, status, lastResult, resumable }: RevisionFormProps) {
  const [form, fields] = useForm({
    id: 'revision-new',
    lastResult,
    defaultValue: { code: nextRevisionCode(currentCode, status, codes), status },
    defaultNoValidate: false,
    constraint: getZodConstraint(RevisionSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: RevisionSchema }),
  })
  const focus = firstInvalidField(lastResult, ['code', 'status', 'comment', 'file'])
  const formProps = getFormProps(form)
  return (
    <Form
      method="post"
      encType="multipart/form-data"
      {...formProps}
      onSubmit={(event) => {
        formProps.onSubmit(event)
        resumable.onSubmit(event)
      }}
      className="flex flex-col gap-4"
    >
      <CsrfInput />
      <FormError id={form.errorId} errors={form.errors} />
      <RevisionFields fields={fields} focus={focus} />
      <FileUploadField
        label="File"
        help={currentCode ? `It supersedes ${currentCode}, which stays in the history.` : 'It becomes the document’s first revision.'}
        required
        errors={resumable.fileErrors ?? lastResult?.error?.file ?? null}
        upload={resumable.upload}
        onOutcome={resumable.onOutcome}
      />
      <div>
        <SubmitButton intent="revision" pendingLabel="Uploading…">
          {resumable.busy ? 'Uploading…' : 'Upload revision'}
        </SubmitButton>
      </div>
    </Form>
  )
}

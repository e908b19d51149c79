import { getFormProps, getInputProps, getSelectProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { firstInvalidField } from '~/components/reporting/report-action'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import type { DocumentDetail } from '~/lib/documents/types'
import { DOCUMENT_NUMBER_MAX, DocumentEditSchema } from '~/lib/schemas/documents'
import { RevisionInput } from '~/components/ui/revision-input'

export type FolderChoice = { id: string; path: string }

/** "Edit details" (intent `edit`): number, title and folder. A new number is checked against the naming standard. */
/** `revision`: the document's revision this form saves against (expectedRevision), the current one after a conflict. */
export function DocumentEditForm({
  doc,
  folders,
  projectName,
  revision,
  lastResult,
}: {
  doc: DocumentDetail
  folders: readonly FolderChoice[]
  projectName: string
  revision: number
  lastResult: SubmissionResult<string[]> | undefined
}) {
  const [form, fields] = useForm({
    id: 'document-edit',
    lastResult,
    defaultValue: { number: doc.number, title: doc.title, folderId: doc.folderId ?? '' },
    defaultNoValidate: false,
    constraint: getZodConstraint(DocumentEditSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: DocumentEditSchema }),
  })
  const focus = firstInvalidField(lastResult, ['number', 'title', 'folderId'])
  return (
    <Form method="post" {...getFormProps(form)} aria-label="Edit details" className="flex flex-col gap-4">
      <CsrfInput />
      <RevisionInput revision={revision} />
      <FormError id={form.errorId} errors={form.errors} />
      <Field
        label="Number"
        inputProps={{ ...getInputProps(fields.number, { type: 'text' }), maxLength: DOCUMENT_NUMBER_MAX, autoComplete: 'off', spellCheck: false, className: 'font-mono', autoFocus: focus === 'number' }}
        errors={fields.number.errors}
      />
      <Field label="Title" inputProps={{ ...getInputProps(fields.title, { type: 'text' }), autoComplete: 'off', autoFocus: focus === 'title' }} errors={fields.title.errors} />
      <SelectField
        label="Folder"
        selectProps={{ ...getSelectProps(fields.folderId), autoFocus: focus === 'folderId' }}
        options={[{ value: '', label: `${projectName} (top)` }, ...folders.map((folder) => ({ value: folder.id, label: folder.path }))]}
        errors={fields.folderId.errors}
      />
      <div>
        <SubmitButton intent="edit" pendingLabel="Saving…" variant="secondary">
          Save details
        </SubmitButton>
      </div>
    </Form>
  )
}

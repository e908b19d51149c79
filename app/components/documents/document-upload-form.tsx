import { getFormProps, getInputProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { firstInvalidField } from '~/components/reporting/report-action'
import { Button } from '~/components/ui/button'
import { CsrfInput } from '~/components/ui/csrf-input'
import { ErrorList } from '~/components/ui/error-list'
import { FieldHelp, FieldLabel, controlClasses, useFieldA11y } from '~/components/ui/field-parts'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { FileUploadField } from '~/islands/upload/file-upload-field'
import type { MetadataField, NamingField } from '~/lib/documents/types'
import { DOCUMENT_NUMBER_MAX, DocumentUploadSchema } from '~/lib/schemas/documents'
import type { NameCheck } from './document-action'
import { MetadataInputs, sentMetadata } from './metadata-inputs'
import { NumberBuilder, sentParts } from './number-builder'
import { RevisionFields } from './revision-fields'
import type { ResumableForm } from './use-resumable-form'

export type DocumentUploadFormProps = {
  folderId: string | null
  folderName: string
  /** An example of the project's container names, e.g. SYM01-ARC-ZZ-00-DR-A-0001. */
  example: string
  /** The project's naming fields, for the number builder. */
  namingFields: readonly NamingField[]
  metadataFields: readonly MetadataField[]
  lastResult: SubmissionResult<string[]> | undefined
  nameCheck: NameCheck | undefined
  resumable: ResumableForm
}

const FIELD_ORDER = ['number', 'title', 'code', 'status', 'comment', 'file']

/**
 * "Upload document" (intent `upload`): a new document in the folder on screen and its file as the
 * first revision. "Check name" (intent `validate`) checks the number alone, sent without the file
 * (`formEncType`), so nothing large goes over the line for it.
 */
export function DocumentUploadForm({ folderId, folderName, example, namingFields, metadataFields, lastResult, nameCheck, resumable }: DocumentUploadFormProps) {
  const [form, fields] = useForm({
    id: 'document-upload',
    lastResult,
    defaultValue: { code: 'P01', status: 'S0' },
    defaultNoValidate: false,
    constraint: getZodConstraint(DocumentUploadSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: DocumentUploadSchema }),
  })
  const errors = lastResult?.error ?? undefined
  const focus = firstInvalidField(lastResult, [...FIELD_ORDER, ...metadataFields.map((f) => `metadata.${f.key}`)])
  const formProps = getFormProps(form)
  // conform hands out `key` to reset the control; React refuses it inside a spread.
  const { key: numberKey, ...numberProps } = getInputProps(fields.number, { type: 'text' })
  const numberA11y = useFieldA11y({ id: numberProps.id, errors: fields.number.errors, hasHelp: true, describedBy: undefined, invalid: undefined })
  const checked = nameCheck && nameCheck.valid ? nameCheck : undefined
  const fileErrors = resumable.fileErrors ?? errors?.file ?? null
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
      {folderId ? <input type="hidden" name="folderId" value={folderId} /> : null}
      <FormError id={form.errorId} errors={form.errors} />
      <p className="text-sm text-muted">Into {folderName}.</p>
      {/* The number and its "Check name" button: the field's errors are every naming problem at once. */}
      <div className="flex flex-col gap-1.5">
        <FieldLabel htmlFor={numberA11y.id}>Number</FieldLabel>
        <FieldHelp id={numberA11y.helpId}>
          The project’s naming standard, fields joined by “-”, for example <span className="font-mono break-all">{example}</span>.
        </FieldHelp>
        <ErrorList id={numberA11y.errorId} errors={fields.number.errors} />
        <div className="flex flex-col gap-2 sm:flex-row">
          <input
            key={numberKey}
            {...numberProps}
            {...numberA11y.controlProps}
            maxLength={DOCUMENT_NUMBER_MAX}
            autoComplete="off"
            spellCheck={false}
            autoCapitalize="characters"
            // Left blank, the number builder's parts make it on the server: the browser must let the form go.
            required={namingFields.length > 0 ? false : numberProps.required}
            autoFocus={focus === 'number'}
            className={`${controlClasses(numberA11y.invalid)} font-mono`}
          />
          <Button type="submit" variant="secondary" name="intent" value="validate" formNoValidate formEncType="application/x-www-form-urlencoded" className="shrink-0">
            Check name
          </Button>
        </div>
        {checked ? (
          <p role="status" className="text-sm font-medium text-success">
            {checked.number} follows the naming standard and is not used yet.
          </p>
        ) : null}
      </div>
      <NumberBuilder
        fields={namingFields}
        sent={sentParts(lastResult?.initialValue ?? undefined)}
        onParts={(number) => form.update({ name: fields.number.name, value: number })}
      />
      <Field label="Title" inputProps={{ ...getInputProps(fields.title, { type: 'text' }), autoComplete: 'off', autoFocus: focus === 'title' }} errors={fields.title.errors} />
      <RevisionFields fields={fields} focus={focus} />
      <FileUploadField
        label="File"
        help="A drawing, model, PDF or any document file. It becomes revision one of the document."
        required
        errors={fileErrors}
        upload={resumable.upload}
        onOutcome={resumable.onOutcome}
      />
      <MetadataInputs fields={metadataFields} values={sentMetadata(lastResult)} errors={errors} idPrefix="upload" />
      <div>
        <SubmitButton intent="upload" pendingLabel="Uploading…">
          {resumable.busy ? 'Uploading…' : 'Upload document'}
        </SubmitButton>
      </div>
    </Form>
  )
}

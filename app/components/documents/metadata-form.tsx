import type { SubmissionResult } from '@conform-to/react'
import { Form } from 'react-router'
import { CsrfInput } from '~/components/ui/csrf-input'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { formatDate, formatNumber } from '~/lib/format'
import type { MetadataField, MetadataValues } from '~/lib/documents/types'
import { MetadataInputs, sentMetadata } from './metadata-inputs'
import { RevisionInput } from '~/components/ui/revision-input'

/**
 * The document's metadata (intent `metadata`): one field per project field, saved together
 * (PUT …/metadata replaces every value). Without the right to edit, the values as a list.
 */
/** `revision`: the document's revision this form saves against (expectedRevision), the current one after a conflict. */
export function MetadataForm({
  fields,
  values,
  canEdit,
  revision,
  lastResult,
  locale,
}: {
  fields: readonly MetadataField[]
  values: MetadataValues
  canEdit: boolean
  revision: number
  lastResult: SubmissionResult<string[]> | undefined
  locale: string
}) {
  if (!canEdit) return <MetadataValuesList fields={fields} values={values} locale={locale} />
  const formErrors = lastResult?.error?.[''] ?? null
  return (
    <Form method="post" id="document-metadata" aria-label="Metadata" className="flex flex-col gap-4">
      <CsrfInput />
      <RevisionInput revision={revision} />
      <FormError errors={formErrors} />
      <MetadataInputs fields={fields} values={lastResult ? (sentMetadata(lastResult) ?? {}) : values} errors={lastResult?.error} idPrefix="document" />
      <div>
        <SubmitButton intent="metadata" pendingLabel="Saving…" variant="secondary">
          Save metadata
        </SubmitButton>
      </div>
    </Form>
  )
}

function MetadataValuesList({ fields, values, locale }: { fields: readonly MetadataField[]; values: MetadataValues; locale: string }) {
  return (
    <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-2">
      {fields.map((field) => {
        const value = values[field.key]
        const text = value === undefined || value === '' ? '—' : typeof value === 'number' ? formatNumber(value, locale) : field.kind === 'date' ? formatDate(value, locale) : value
        return (
          <div key={field.key} className="flex flex-col gap-1">
            <dt className="text-muted">{field.label}</dt>
            <dd className="break-words">{text}</dd>
          </div>
        )
      })}
    </dl>
  )
}

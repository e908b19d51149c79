import type { SubmissionResult } from '@conform-to/react'
import { Field } from '~/components/ui/field'
import { SelectField } from '~/components/ui/select-field'
import type { MetadataField } from '~/lib/documents/types'

/** The project's metadata values as a form last sent them (conform's `initialValue` nests `metadata.<key>`). */
export function sentMetadata(result: SubmissionResult<string[]> | undefined): Record<string, unknown> | undefined {
  const sent = result?.initialValue?.metadata
  return typeof sent === 'object' && sent !== null && !Array.isArray(sent) ? (sent as Record<string, unknown>) : undefined
}

export type MetadataInputsProps = {
  fields: readonly MetadataField[]
  /** What the inputs start with: what the user sent last, else the document's values. */
  values: Readonly<Record<string, unknown>> | undefined
  /** Field errors by name (`metadata.<key>`), as the backend sends them. */
  errors: Readonly<Record<string, readonly string[] | null | undefined>> | null | undefined
  /** Keeps ids apart when two forms on a page show the same fields. */
  idPrefix: string
}

/**
 * One input per project metadata field (docs/documents.md "Model"), named `metadata.<key>` so the
 * backend's errors land next to it: text, a select of the choices, a date, a number. Required
 * fields say so and are required in the browser too.
 */
export function MetadataInputs({ fields, values, errors, idPrefix }: MetadataInputsProps) {
  return (
    <>
      {fields.map((field) => {
        const name = `metadata.${field.key}`
        const id = `${idPrefix}-metadata-${field.key}`
        const label = field.required ? `${field.label} (required)` : field.label
        const raw = values?.[field.key]
        const value = typeof raw === 'string' || typeof raw === 'number' ? String(raw) : ''
        const fieldErrors = errors?.[name] ?? null
        if (field.kind === 'choice') {
          return (
            <SelectField
              key={field.key}
              label={label}
              selectProps={{ name, id, defaultValue: value, required: field.required }}
              placeholder={field.required ? 'Choose one' : 'Not set'}
              options={field.options.map((option) => ({ value: option, label: option }))}
              errors={fieldErrors}
            />
          )
        }
        const typed =
          field.kind === 'date'
            ? { type: 'date' }
            : field.kind === 'number'
              ? { type: 'number', step: 'any', inputMode: 'decimal' as const }
              : { type: 'text', maxLength: 500, autoComplete: 'off' }
        return <Field key={field.key} label={label} inputProps={{ ...typed, name, id, defaultValue: value, required: field.required }} errors={fieldErrors} />
      })}
    </>
  )
}

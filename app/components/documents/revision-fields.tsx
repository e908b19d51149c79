import type { FieldMetadata } from '@conform-to/react'
import { getInputProps, getSelectProps, getTextareaProps } from '@conform-to/react'
import { Field } from '~/components/ui/field'
import { SelectField } from '~/components/ui/select-field'
import { TextareaField } from '~/components/ui/textarea-field'
import { SUITABILITY } from '~/lib/documents/rules'
import { REVISION_COMMENT_MAX } from '~/lib/schemas/documents'

type RevisionFieldset<Form extends Record<string, unknown>> = {
  code: FieldMetadata<string, Form, string[]>
  status: FieldMetadata<string, Form, string[]>
  comment: FieldMetadata<string | undefined, Form, string[]>
}

/** The suitability codes with their meaning, for a status select. */
export const STATUS_OPTIONS = SUITABILITY.map((s) => ({ value: s.code, label: `${s.code} ${s.label}` }))

/**
 * A revision's code, suitability status and comment: the same three fields in "Upload document"
 * and "New revision" (docs/documents.md "Revisions"; ../shared/notes/doc-control.md "Revisions").
 */
export function RevisionFields<Form extends Record<string, unknown>>({ fields, focus }: { fields: RevisionFieldset<Form>; focus: string | undefined }) {
  return (
    <>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field
          label="Revision"
          help="P01, P02… while preliminary; P01.1 for work in progress; C01, C02… once published."
          inputProps={{ ...getInputProps(fields.code, { type: 'text' }), autoComplete: 'off', spellCheck: false, autoCapitalize: 'characters', autoFocus: focus === 'code' }}
          errors={fields.code.errors}
        />
        <SelectField
          label="Suitability status"
          help="With a P revision use S0 to S7; a published status (A, B, CR) takes a C revision."
          selectProps={{ ...getSelectProps(fields.status), autoFocus: focus === 'status' }}
          options={STATUS_OPTIONS}
          errors={fields.status.errors}
        />
      </div>
      <TextareaField
        label="Comment (optional)"
        help={`What changed, or why it is issued. At most ${REVISION_COMMENT_MAX} characters.`}
        textareaProps={{ ...getTextareaProps(fields.comment), rows: 3, autoFocus: focus === 'comment' }}
        errors={fields.comment.errors}
      />
    </>
  )
}

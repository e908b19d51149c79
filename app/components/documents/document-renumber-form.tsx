import { getFormProps, getInputProps, getTextareaProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { firstInvalidField } from '~/components/reporting/report-action'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { TextareaField } from '~/components/ui/textarea-field'
import type { DocumentDetail } from '~/lib/documents/types'
import { formatDateTime } from '~/lib/format'
import { RENUMBER_REASON_MAX, RenumberSchema } from '~/lib/schemas/rule-book'

/**
 * "Renumber" (intent `renumber`; docs/doc-control.md "The rule book"): the one way to change the
 * number (and so the discipline and type) of a published or sent document. A document controller
 * or an administrator, with a reason; the people who received it by transmittal are told.
 */
export function DocumentRenumberForm({ doc, lastResult }: { doc: DocumentDetail; lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: 'document-renumber',
    lastResult,
    defaultValue: { number: doc.number, reason: '' },
    defaultNoValidate: false,
    constraint: getZodConstraint(RenumberSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: RenumberSchema }),
  })
  const focus = firstInvalidField(lastResult, ['number', 'reason'])
  return (
    <Form method="post" {...getFormProps(form)} aria-label="Renumber" className="flex flex-col gap-4">
      <CsrfInput />
      <FormError id={form.errorId} errors={form.errors} />
      <Field
        label="New number"
        help="Checked against the project’s naming standard; the discipline and type follow from it."
        inputProps={{ ...getInputProps(fields.number, { type: 'text' }), autoComplete: 'off', spellCheck: false, className: 'font-mono', autoFocus: focus === 'number' }}
        errors={fields.number.errors}
      />
      <TextareaField
        label="Reason"
        help="Kept in the document’s history and sent to everyone who received it by transmittal."
        textareaProps={{ ...getTextareaProps(fields.reason), rows: 3, maxLength: RENUMBER_REASON_MAX, autoFocus: focus === 'reason' }}
        errors={fields.reason.errors}
      />
      <div>
        <SubmitButton intent="renumber" pendingLabel="Renumbering…" variant="secondary">
          Renumber
        </SubmitButton>
      </div>
    </Form>
  )
}

/** The document's earlier numbers: each renumber, who, when and why. */
export function RenumberHistory({ renumbers, locale }: { renumbers: DocumentDetail['renumbers']; locale: string }) {
  if (renumbers.length === 0) return null
  return (
    <ol aria-label="Number history" className="flex flex-col gap-3 text-sm">
      {[...renumbers].reverse().map((r) => (
        <li key={`${r.atUtc}-${r.to}`} className="rounded-md border border-border bg-surface px-3 py-2">
          <p className="font-mono break-all">
            {r.from} → {r.to}
          </p>
          <p className="text-muted">
            {r.by ? `${r.by.displayName}, ` : ''}
            {formatDateTime(r.atUtc, locale)}
            {r.told > 0 ? ` · ${r.told === 1 ? '1 recipient' : `${r.told} recipients`} told by mail` : ''}
          </p>
          <p className="break-words">{r.reason}</p>
        </li>
      ))}
    </ol>
  )
}

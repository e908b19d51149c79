import { getFormProps, getInputProps, getSelectProps, getTextareaProps, parse, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { firstInvalidField } from '~/components/reporting/report-action'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { TextareaField } from '~/components/ui/textarea-field'
import type { Transmittal } from '~/lib/doc-control/types'
import { TRANSMITTAL_MESSAGE_MAX, TRANSMITTAL_SUBJECT_MAX, TransmittalPatchSchema } from '~/lib/schemas/transmittals'
import { PURPOSE_OPTIONS } from './transmittal-labels'
import { WizardButtons } from './wizard-buttons'

const FIELDS = ['purpose', 'subject', 'message', 'responseDueDate'] as const

/**
 * Step 3: why it is issued. The purpose (reason for issue), a subject, a message, and the date a
 * response is due (empty: no response asked). The fields are the PATCH body's
 * (TransmittalPatchSchema); what this step asks beyond it (a subject, a date from today on) the
 * action checks. Back is never blocked by a field to fix: the browser and conform skip their checks
 * for it, and the action keeps what is valid.
 */
/** `revision`: the draft's revision the fields are saved against (the loaded one, or the current one after a conflict). */
export function WizardMessageStep({ transmittal, revision, lastResult }: { transmittal: Transmittal; revision: number; lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: 'wizard-message',
    lastResult,
    defaultValue: { purpose: transmittal.purpose, subject: transmittal.subject, message: transmittal.message, responseDueDate: transmittal.responseDueDate ?? '' },
    defaultNoValidate: false,
    constraint: getZodConstraint(TransmittalPatchSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData, submitter }) => {
      // Going back posts what is there, fixed or not; the action keeps what is valid.
      if (submitter instanceof HTMLButtonElement && submitter.value === 'back') return parse(formData, { resolve: (value) => ({ value }) })
      return parseWithZod(formData, { schema: TransmittalPatchSchema })
    },
  })
  const focus = firstInvalidField(lastResult, FIELDS)
  return (
    <Form method="post" {...getFormProps(form)} aria-label="Purpose and message" className="flex max-w-3xl flex-col gap-4">
      <CsrfInput />
      <FormError id={form.errorId} errors={form.errors} />
      <SelectField
        label="Purpose"
        help="The reason for issue the recipients read first."
        selectProps={{ ...getSelectProps(fields.purpose), autoFocus: focus === 'purpose' }}
        options={PURPOSE_OPTIONS}
        errors={fields.purpose.errors}
      />
      <Field
        label="Subject"
        inputProps={{ ...getInputProps(fields.subject, { type: 'text' }), maxLength: TRANSMITTAL_SUBJECT_MAX, autoComplete: 'off', autoFocus: focus === 'subject' }}
        errors={fields.subject.errors}
      />
      <TextareaField
        label="Message (optional)"
        textareaProps={{ ...getTextareaProps(fields.message), maxLength: TRANSMITTAL_MESSAGE_MAX, rows: 6, autoFocus: focus === 'message' }}
        errors={fields.message.errors}
      />
      <Field
        label="Response due (optional)"
        help="Leave empty when no response is asked for. Recipients see the date with the transmittal."
        inputProps={{ ...getInputProps(fields.responseDueDate, { type: 'date' }), className: 'sm:max-w-56', autoFocus: focus === 'responseDueDate' }}
        errors={fields.responseDueDate.errors}
      />
      <WizardButtons step="message" revision={revision} />
    </Form>
  )
}

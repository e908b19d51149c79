import { getFormProps, getTextareaProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { CsrfInput } from '~/components/ui/csrf-input'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { TextareaField } from '~/components/ui/textarea-field'
import type { Transmittal, TransmittalRecipient } from '~/lib/doc-control/types'
import { formatDate, formatDateTime } from '~/lib/format'
import { TRANSMITTAL_RESPONSE_MAX, TransmittalRespondSchema } from '~/lib/schemas/transmittals'

/**
 * What the recipient does with it: acknowledge receipt, and respond in words when a response is
 * asked (a response date was set). Each is its own form, working without JavaScript.
 */
export function RecipientActions({
  transmittal,
  mine,
  locale,
  lastResult,
}: {
  transmittal: Transmittal
  mine: TransmittalRecipient
  locale: string
  lastResult: SubmissionResult<string[]> | undefined
}) {
  const open = transmittal.status !== 'closed' && transmittal.status !== 'draft'
  const acknowledged = mine.acknowledgedAt !== null
  const responseAsked = transmittal.responseDueDate !== null
  return (
    <div className="flex flex-col gap-6">
      {acknowledged ? (
        <p className="text-sm text-text">You acknowledged it on {formatDateTime(mine.acknowledgedAt ?? '', locale)}.</p>
      ) : open ? (
        <Form method="post" aria-label="Acknowledge" className="flex flex-col gap-2">
          <CsrfInput />
          <p className="text-sm text-muted">Tell {transmittal.sentBy?.displayName ?? 'the sender'} you have received it.</p>
          <div>
            <SubmitButton intent="acknowledge" pendingLabel="Acknowledging…">
              Acknowledge receipt
            </SubmitButton>
          </div>
        </Form>
      ) : null}
      {responseAsked ? (
        mine.respondedAt ? (
          <div className="flex flex-col gap-1 text-sm">
            <p className="text-text">You responded on {formatDateTime(mine.respondedAt, locale)}:</p>
            <p className="break-words whitespace-pre-line text-muted">{mine.response}</p>
          </div>
        ) : open ? (
          <RespondForm due={formatDate(transmittal.responseDueDate ?? '', locale)} lastResult={lastResult} />
        ) : null
      ) : null}
    </div>
  )
}

function RespondForm({ due, lastResult }: { due: string; lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: 'transmittal-respond',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(TransmittalRespondSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: TransmittalRespondSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} aria-label="Respond" className="flex max-w-2xl flex-col gap-3">
      <CsrfInput />
      <FormError id={form.errorId} errors={form.errors} />
      <TextareaField
        label="Your response"
        help={`A response is asked for by ${due}.`}
        textareaProps={{ ...getTextareaProps(fields.response), maxLength: TRANSMITTAL_RESPONSE_MAX, rows: 4, autoFocus: Boolean(fields.response.errors?.length) }}
        errors={fields.response.errors}
      />
      <div>
        <SubmitButton intent="respond" variant="secondary" pendingLabel="Sending…">
          Send response
        </SubmitButton>
      </div>
    </Form>
  )
}

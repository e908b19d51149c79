import { getFormProps, getTextareaProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { type ReactNode } from 'react'
import { Form } from 'react-router'
import { CsrfInput } from '~/components/ui/csrf-input'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { TextareaField } from '~/components/ui/textarea-field'
import type { ItemStatus } from '~/lib/reporting/types'
import { ConfirmCloseSchema, RejectCloseSchema } from '~/lib/schemas/reporting-items'

/**
 * The verifier's decision (docs/site-reporting.md "Status"): on a close request, confirm it or
 * reject it with a reason; an open item can be closed outright; a closed one reopened with a reason.
 */
export function ItemVerifyForms({
  status,
  confirmResult,
  rejectResult,
  photos,
}: {
  status: ItemStatus
  /** The photo field of the close confirmation (PhotoUploadField). */
  photos?: ReactNode
  confirmResult: SubmissionResult<string[]> | undefined
  rejectResult: SubmissionResult<string[]> | undefined
}) {
  switch (status) {
    case 'close_requested':
      return (
        <div className="grid gap-6 md:grid-cols-2">
          <ConfirmCloseForm label="Confirm and close" lastResult={confirmResult} photos={photos} />
          <RejectCloseForm label="Reject close" lastResult={rejectResult} />
        </div>
      )
    case 'open':
      return <ConfirmCloseForm label="Close item" lastResult={confirmResult} photos={photos} />
    case 'closed':
      return <RejectCloseForm label="Reopen item" lastResult={rejectResult} />
  }
}

function ConfirmCloseForm({ label, lastResult, photos }: { label: string; lastResult: SubmissionResult<string[]> | undefined; photos?: ReactNode }) {
  const [form, fields] = useForm({
    id: 'confirm-close',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(ConfirmCloseSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ConfirmCloseSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} encType={photos ? 'multipart/form-data' : undefined} className="flex flex-col gap-4">
      <CsrfInput />
      <FormError id={form.errorId} errors={form.errors} />
      <TextareaField label="Note (optional)" textareaProps={{ ...getTextareaProps(fields.body), rows: 3 }} errors={fields.body.errors} />
      {photos}
      <div>
        <SubmitButton intent="confirm-close" pendingLabel="Closing…">
          {label}
        </SubmitButton>
      </div>
    </Form>
  )
}

function RejectCloseForm({ label, lastResult }: { label: string; lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: 'reject-close',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(RejectCloseSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: RejectCloseSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
      <CsrfInput />
      <FormError id={form.errorId} errors={form.errors} />
      <TextareaField
        label="Reason"
        help="Stays in the thread, so the assignee knows what is still to do."
        textareaProps={{ ...getTextareaProps(fields.body), rows: 3 }}
        errors={fields.body.errors}
      />
      <div>
        <SubmitButton intent="reject-close" variant="secondary" pendingLabel="Sending…">
          {label}
        </SubmitButton>
      </div>
    </Form>
  )
}

import { type SubmissionResult, getFormProps, getSelectProps, getTextareaProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { firstInvalidField } from '~/components/reporting/report-action'
import { CsrfInput } from '~/components/ui/csrf-input'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import { TextareaField } from '~/components/ui/textarea-field'
import { ROLE_CHOICES, type AdminJoinRequest } from '~/lib/admin/join-requests'
import { ApproveFormSchema, DeclineFormSchema } from '~/lib/schemas/admin-join-requests'
import { formatDateTime } from '~/lib/format'

type Props = {
  request: AdminJoinRequest
  locale: string
  /** The last reply of this request's approve form, or its decline form. */
  approveResult: SubmissionResult<string[]> | undefined
  declineResult: SubmissionResult<string[]> | undefined
}

/**
 * One pending join request: who asks, their message, and two forms: approve with a role (Read Only
 * unless chosen otherwise) and decline with a reason the person reads. Both work without JavaScript
 * and keep what was typed when refused.
 */
export function JoinRequestCard({ request, locale, approveResult, declineResult }: Props) {
  const headingId = `join-request-${request.id}`
  return (
    <article aria-labelledby={headingId} className="flex flex-col gap-4 rounded-lg border border-border bg-surface p-4">
      <div className="flex flex-col gap-1">
        <h3 id={headingId} className="text-base font-semibold text-text">
          {request.requester.displayName}
        </h3>
        <p className="text-sm break-all text-muted">{request.requester.email}</p>
        <p className="text-sm text-muted">Asked {formatDateTime(request.createdAtUtc, locale)}</p>
      </div>
      {request.message ? (
        <blockquote className="border-l-4 border-border-strong pl-3 text-sm whitespace-pre-line text-text">{request.message}</blockquote>
      ) : (
        <p className="text-sm text-muted">No message.</p>
      )}
      <div className="grid gap-6 md:grid-cols-2">
        <ApproveForm request={request} lastResult={approveResult} />
        <DeclineForm request={request} lastResult={declineResult} />
      </div>
    </article>
  )
}

function ApproveForm({ request, lastResult }: { request: AdminJoinRequest; lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: `approve-${request.id}`,
    lastResult,
    defaultValue: { requestId: request.id, roleKey: 'read-only' },
    defaultNoValidate: false,
    constraint: getZodConstraint(ApproveFormSchema),
    shouldValidate: 'onBlur',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ApproveFormSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-3">
      <CsrfInput />
      <input type="hidden" name="requestId" value={request.id} />
      <FormError id={form.errorId} errors={form.errors} />
      <SelectField
        label="Role"
        help="What they may do in the organisation. Read Only is the safe start."
        selectProps={{ ...getSelectProps(fields.roleKey), autoFocus: firstInvalidField(lastResult, ['roleKey']) === 'roleKey' }}
        options={ROLE_CHOICES}
        errors={fields.roleKey.errors}
      />
      <SubmitButton intent="approve" pendingLabel="Approving…" className="self-start" aria-label={`Approve ${request.requester.displayName}`}>
        Approve
      </SubmitButton>
    </Form>
  )
}

function DeclineForm({ request, lastResult }: { request: AdminJoinRequest; lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: `decline-${request.id}`,
    lastResult,
    defaultValue: { requestId: request.id },
    defaultNoValidate: false,
    constraint: getZodConstraint(DeclineFormSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: DeclineFormSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-3">
      <CsrfInput />
      <input type="hidden" name="requestId" value={request.id} />
      <FormError id={form.errorId} errors={form.errors} />
      <TextareaField
        label="Reason for declining"
        help="The person reads this in their e-mail. At most 500 characters."
        textareaProps={{ ...getTextareaProps(fields.reason), rows: 2, autoFocus: firstInvalidField(lastResult, ['reason']) === 'reason' }}
        errors={fields.reason.errors}
      />
      <SubmitButton intent="decline" variant="secondary" pendingLabel="Declining…" className="self-start" aria-label={`Decline ${request.requester.displayName}`}>
        Decline
      </SubmitButton>
    </Form>
  )
}

import { getFormProps, getInputProps, getSelectProps, getTextareaProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import { TextareaField } from '~/components/ui/textarea-field'
import { ROLE_KEY_LABELS } from '~/lib/auth/role'
import { InviteCreateSchema } from '~/lib/schemas/admin-invites'

export const ROLE_OPTIONS = Object.entries(ROLE_KEY_LABELS).map(([value, label]) => ({ value, label }))

/** "Invite someone": e-mail, role, message. Works without JavaScript; what was typed comes back on an error. */
export function InviteCreateForm({ lastResult, idempotencyKey }: { lastResult: SubmissionResult<string[]> | undefined; idempotencyKey: string }) {
  const [form, fields] = useForm({
    id: 'invite-create',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(InviteCreateSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: InviteCreateSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} className="flex max-w-xl flex-col gap-4">
      <CsrfInput />
      <input type="hidden" name="idempotencyKey" value={idempotencyKey} />
      <FormError id={form.errorId} errors={form.errors} />
      <Field label="E-mail address" inputProps={{ ...getInputProps(fields.email, { type: 'email' }), autoComplete: 'off', spellCheck: false }} errors={fields.email.errors} />
      <SelectField label="Role" selectProps={getSelectProps(fields.roleKey)} options={ROLE_OPTIONS} placeholder="Choose a role" errors={fields.roleKey.errors} />
      <TextareaField
        label="Message (optional)"
        help="Shown in the invitation e-mail and on the invitation page."
        textareaProps={{ ...getTextareaProps(fields.message), rows: 3 }}
        errors={fields.message.errors}
      />
      <div>
        <SubmitButton intent="invite" pendingLabel="Sending invitation…">
          Send invitation
        </SubmitButton>
      </div>
    </Form>
  )
}

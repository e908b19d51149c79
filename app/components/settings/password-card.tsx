import { getFormProps, getInputProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { Card } from '~/components/ui/card'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { PASSWORD_MIN, PasswordSetSchema } from '~/lib/schemas/auth'

/** Changing the password (POST /auth/password/set), which signs out the other sessions. */
export function PasswordCard({ lastResult }: { lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: 'password-set',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(PasswordSetSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: PasswordSetSchema }),
  })
  return (
    <Card className="p-5" role="region" aria-label="Change password">
      <h2 className="mb-4 text-lg font-semibold">Change password</h2>
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <CsrfInput />
        <input type="hidden" name="intent" value="password" />
        <FormError id={form.errorId} errors={form.errors} />
        <Field
          label="Current password"
          inputProps={{ ...getInputProps(fields.currentPassword, { type: 'password' }), autoComplete: 'current-password' }}
          errors={fields.currentPassword.errors}
        />
        <Field
          label="New password"
          help={`At least ${PASSWORD_MIN} characters. A long passphrase is best.`}
          inputProps={{ ...getInputProps(fields.newPassword, { type: 'password' }), autoComplete: 'new-password' }}
          errors={fields.newPassword.errors}
        />
        <SubmitButton intent="password" pendingLabel="Saving…" className="self-start">
          Change password
        </SubmitButton>
      </Form>
    </Card>
  )
}

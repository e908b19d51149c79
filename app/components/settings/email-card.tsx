import { getFormProps, getInputProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { Banner } from '~/components/ui/banner'
import { Card } from '~/components/ui/card'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { EmailChangeSchema } from '~/lib/schemas/settings'
import type { UserSettings } from '~/lib/settings/settings'

/** The e-mail address, and changing it: a link goes to the new address, which becomes yours when followed. */
export function EmailCard({ user, lastResult }: { user: UserSettings; lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: 'email-change',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(EmailChangeSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: EmailChangeSchema }),
  })
  return (
    <Card className="p-5" role="region" aria-label="E-mail address">
      <h2 className="mb-4 text-lg font-semibold">E-mail address</h2>
      <p className="mb-4 text-sm">
        You sign in and get mail as <strong className="break-all">{user.email}</strong>.
      </p>
      {user.pendingEmail ? (
        <Banner tone="info" title="Change waiting for you" className="mb-4">
          We sent a link to <strong className="break-all">{user.pendingEmail.newEmail}</strong> — follow it to finish. Until then your address stays {user.email}.
        </Banner>
      ) : null}
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <CsrfInput />
        <input type="hidden" name="intent" value="email" />
        <FormError id={form.errorId} errors={form.errors} />
        <Field label="New e-mail address" inputProps={{ ...getInputProps(fields.newEmail, { type: 'email' }), autoComplete: 'email' }} errors={fields.newEmail.errors} />
        <Field
          label="Current password"
          help="To make sure it is you asking."
          inputProps={{ ...getInputProps(fields.currentPassword, { type: 'password' }), autoComplete: 'current-password' }}
          errors={fields.currentPassword.errors}
        />
        <SubmitButton intent="email" pendingLabel="Sending link…" className="self-start">
          Change e-mail address
        </SubmitButton>
      </Form>
    </Card>
  )
}

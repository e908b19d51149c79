import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data, Form, redirect } from 'react-router'
import { Card } from '~/components/ui/card'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { createServerApi } from '~/lib/api.server'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, replyWithApiError } from '~/lib/forms'
import { PASSWORD_MIN, PasswordSetSchema } from '~/lib/schemas/auth'
import { useShellSession } from '~/root'
import type { Route } from './+types/user'

/** User settings: who you are, and changing your password (which signs out your other sessions). */
export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const submission = parseWithZod(formData, { schema: PasswordSetSchema })
  if (submission.status !== 'success') {
    return data({ result: submission.reply({ hideFields: ['currentPassword', 'newPassword'] }) }, { status: 400 })
  }
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const result = await api.post('/auth/password/set', submission.value)
  if (!result.ok) {
    return data(
      { result: replyWithApiError(submission, result.error, ['currentPassword', 'newPassword']) },
      { status: failureStatus(result.error), headers: responseHeaders },
    )
  }
  await setFlash(responseHeaders, { tone: 'success', message: 'Your password has been changed. Your other sessions were signed out.' })
  throw redirect('/settings/user', { headers: responseHeaders })
}

export default function UserSettings({ actionData }: Route.ComponentProps) {
  const session = useShellSession()
  const [form, fields] = useForm({
    id: 'password-set',
    lastResult: actionData?.result,
    defaultNoValidate: false,
    constraint: getZodConstraint(PasswordSetSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: PasswordSetSchema }),
  })
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <Card className="p-5">
        <h2 className="mb-4 text-lg font-semibold">Your account</h2>
        <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-2 text-sm">
          <dt className="text-muted">Name</dt>
          <dd>{session?.displayName}</dd>
          <dt className="text-muted">E-mail</dt>
          <dd className="break-all">{session?.email}</dd>
          <dt className="text-muted">Organisation</dt>
          <dd>{session?.tenantName}</dd>
        </dl>
      </Card>
      <Card className="p-5">
        <h2 className="mb-4 text-lg font-semibold">Change password</h2>
        <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
          <CsrfInput />
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
          <SubmitButton pendingLabel="Saving…">Change password</SubmitButton>
        </Form>
      </Card>
    </div>
  )
}

export function meta() {
  return [{ title: 'User settings · Site Portal' }]
}

import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data, Form, Link, redirect } from 'react-router'
import { AuthCard } from '~/components/auth/auth-card'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { createServerApi } from '~/lib/api.server'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, replyWithApiError } from '~/lib/forms'
import { PASSWORD_MIN, RegisterSchema } from '~/lib/schemas/auth'
import type { Route } from './+types/register'

/** One idempotency key per rendered form: submitting the same form twice registers once. */
export function loader() {
  return { idempotencyKey: crypto.randomUUID() }
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const submission = parseWithZod(formData, { schema: RegisterSchema })
  if (submission.status !== 'success') return data({ result: submission.reply({ hideFields: ['password'] }) }, { status: 400 })
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const key = formData.get('idempotencyKey')
  const result = await api.POST('/auth/register-self', { body: submission.value, idempotencyKey: typeof key === 'string' && key !== '' ? key : true })
  if (!result.ok) {
    return data({ result: replyWithApiError(submission, result.error, ['password']) }, { status: failureStatus(result.error), headers: responseHeaders })
  }
  await setFlash(responseHeaders, {
    tone: 'success',
    message: `We sent a verification link to ${submission.value.email}. Open it to finish registering.`,
  })
  throw redirect('/auth/verify-email?sent=1', { headers: responseHeaders })
}

export default function Register({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useForm({
    id: 'register',
    lastResult: actionData?.result,
    defaultNoValidate: false,
    constraint: getZodConstraint(RegisterSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: RegisterSchema }),
  })
  return (
    <AuthCard title="Create an account">
      <p className="mb-6 text-sm text-muted">Register your organisation. You will be its administrator and can invite your team.</p>
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <CsrfInput />
        <input type="hidden" name="idempotencyKey" value={loaderData.idempotencyKey} />
        <FormError id={form.errorId} errors={form.errors} />
        <Field label="Your name" inputProps={{ ...getInputProps(fields.displayName, { type: 'text' }), autoComplete: 'name' }} errors={fields.displayName.errors} />
        <Field
          label="E-mail address"
          inputProps={{ ...getInputProps(fields.email, { type: 'email' }), autoComplete: 'email', spellCheck: false }}
          errors={fields.email.errors}
        />
        <Field
          label="Password"
          help={`At least ${PASSWORD_MIN} characters. A long passphrase is best.`}
          inputProps={{ ...getInputProps(fields.password, { type: 'password' }), autoComplete: 'new-password' }}
          errors={fields.password.errors}
        />
        <Field
          label="Organisation name"
          inputProps={{ ...getInputProps(fields.organisationName, { type: 'text' }), autoComplete: 'organization' }}
          errors={fields.organisationName.errors}
        />
        <SubmitButton pendingLabel="Creating your account…">Create account</SubmitButton>
      </Form>
      <p className="mt-6 text-sm">
        Already registered?{' '}
        <Link to="/auth/login" className="text-primary underline">
          Sign in
        </Link>
      </p>
    </AuthCard>
  )
}

export function meta() {
  return [{ title: 'Create an account · Site Portal' }]
}

import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data, Form, Link, redirect, useActionData } from 'react-router'
import { AuthCard } from '~/components/auth/auth-card'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { createServerApi } from '~/lib/api.server'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, replyWithApiError } from '~/lib/forms'
import { PASSWORD_MIN, ResetConfirmSchema, ResetRequestSchema } from '~/lib/schemas/auth'
import type { Route } from './+types/forgot-password'

/** Without a token: ask for a reset link. With the token from that link: choose a new password. */
export function loader({ request }: Route.LoaderArgs) {
  const params = new URL(request.url).searchParams
  return { token: params.get('token') ?? '', sent: params.get('sent') === '1' }
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const intent = formData.get('intent')
  switch (intent) {
    case 'request': {
      const submission = parseWithZod(formData, { schema: ResetRequestSchema })
      if (submission.status !== 'success') return data({ result: submission.reply() }, { status: 400 })
      const result = await api.POST('/auth/password/reset/request', { body: submission.value })
      if (!result.ok) return data({ result: replyWithApiError(submission, result.error) }, { status: failureStatus(result.error), headers: responseHeaders })
      await setFlash(responseHeaders, {
        tone: 'success',
        message: `If ${submission.value.email} has an account, we sent it a link to reset the password. It works for 1 hour.`,
      })
      throw redirect('/auth/forgot-password?sent=1', { headers: responseHeaders })
    }
    case 'reset': {
      const submission = parseWithZod(formData, { schema: ResetConfirmSchema })
      if (submission.status !== 'success') return data({ result: submission.reply({ hideFields: ['password'] }) }, { status: 400 })
      const result = await api.POST('/auth/password/reset/confirm', { body: submission.value })
      if (!result.ok) {
        return data({ result: replyWithApiError(submission, result.error, ['password']) }, { status: failureStatus(result.error), headers: responseHeaders })
      }
      await setFlash(responseHeaders, { tone: 'success', message: 'Your password has been changed. Sign in with your new password.' })
      throw redirect('/auth/login', { headers: responseHeaders })
    }
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

export default function ForgotPassword({ loaderData }: Route.ComponentProps) {
  if (loaderData.token) return <ResetForm token={loaderData.token} />
  return <RequestForm sent={loaderData.sent} />
}

function RequestForm({ sent }: { sent: boolean }) {
  const [form, fields] = useForm({
    id: 'reset-request',
    lastResult: useActionResult(),
    defaultNoValidate: false,
    constraint: getZodConstraint(ResetRequestSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ResetRequestSchema }),
  })
  return (
    <AuthCard title="Reset your password">
      <p className="mb-6 text-sm text-muted">
        {sent ? 'Did not get the e-mail? Check the address and send it again.' : 'Enter the e-mail address of your account and we will send you a link to choose a new password.'}
      </p>
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <CsrfInput />
        <FormError id={form.errorId} errors={form.errors} />
        <Field label="E-mail address" inputProps={{ ...getInputProps(fields.email, { type: 'email' }), autoComplete: 'email', spellCheck: false }} errors={fields.email.errors} />
        <SubmitButton intent="request" pendingLabel="Sending…">
          Send reset link
        </SubmitButton>
      </Form>
      <p className="mt-6 text-sm">
        <Link to="/auth/login" className="text-primary underline">
          Back to sign in
        </Link>
      </p>
    </AuthCard>
  )
}

function ResetForm({ token }: { token: string }) {
  const [form, fields] = useForm({
    id: 'reset-confirm',
    lastResult: useActionResult(),
    defaultNoValidate: false,
    constraint: getZodConstraint(ResetConfirmSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ResetConfirmSchema }),
  })
  return (
    <AuthCard title="Choose a new password">
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <CsrfInput />
        <input type="hidden" name="token" value={token} />
        <FormError id={form.errorId} errors={[...(form.errors ?? []), ...(fields.token.errors ?? [])]} />
        <Field
          label="New password"
          help={`At least ${PASSWORD_MIN} characters. A long passphrase is best.`}
          inputProps={{ ...getInputProps(fields.password, { type: 'password' }), autoComplete: 'new-password' }}
          errors={fields.password.errors}
        />
        <SubmitButton intent="reset" pendingLabel="Saving…">
          Set new password
        </SubmitButton>
      </Form>
    </AuthCard>
  )
}

function useActionResult() {
  return useActionData<typeof action>()?.result
}

export function meta() {
  return [{ title: 'Reset your password · Site Portal' }]
}

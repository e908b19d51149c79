import { getFormProps, useForm } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, Form, Link, redirect } from 'react-router'
import { AuthCard } from '~/components/auth/auth-card'
import { CsrfInput } from '~/components/ui/csrf-input'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { createServerApi } from '~/lib/api.server'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, formMessageFor } from '~/lib/forms'
import { TokenSchema } from '~/lib/schemas/auth'
import type { Route } from './+types/verify-email'

/**
 * The link in the verification e-mail opens this page; a button confirms. A GET never verifies,
 * so mail scanners that open links cannot use up the token.
 */
export function loader({ request }: Route.LoaderArgs) {
  const params = new URL(request.url).searchParams
  return { token: params.get('token') ?? '', sent: params.get('sent') === '1' }
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const submission = parseWithZod(formData, { schema: TokenSchema })
  if (submission.status !== 'success') return data({ result: submission.reply() }, { status: 400 })
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const result = await api.POST('/auth/email/verify', { body: submission.value })
  if (!result.ok) {
    return data({ result: submission.reply({ formErrors: [formMessageFor(result.error)] }) }, { status: failureStatus(result.error), headers: responseHeaders })
  }
  await setFlash(responseHeaders, { tone: 'success', message: 'Your e-mail address is verified. You can sign in now.' })
  throw redirect('/auth/login', { headers: responseHeaders })
}

export default function VerifyEmail({ loaderData, actionData }: Route.ComponentProps) {
  const [form] = useForm({ id: 'verify-email', lastResult: actionData?.result, defaultNoValidate: false })
  if (!loaderData.token) {
    return (
      <AuthCard title="Check your e-mail">
        <p className="text-sm">
          {loaderData.sent
            ? 'Open the link in the e-mail we sent you to verify your address. It works for 24 hours.'
            : 'Open the link in your verification e-mail to verify your address.'}
        </p>
        <p className="mt-6 text-sm">
          <Link to="/auth/login" className="text-primary underline">
            Back to sign in
          </Link>
        </p>
      </AuthCard>
    )
  }
  return (
    <AuthCard title="Verify your e-mail address">
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <CsrfInput />
        <input type="hidden" name="token" value={loaderData.token} />
        <FormError id={form.errorId} errors={form.errors} />
        <p className="text-sm">Confirm that this e-mail address is yours to finish registering.</p>
        <SubmitButton pendingLabel="Verifying…">Verify e-mail address</SubmitButton>
      </Form>
    </AuthCard>
  )
}

export function meta() {
  return [{ title: 'Verify your e-mail address · Site Portal' }]
}

import { getFormProps, useForm } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, Form, Link, redirect } from 'react-router'
import { AuthCard } from '~/components/auth/auth-card'
import { CsrfInput } from '~/components/ui/csrf-input'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { createServerApi } from '~/lib/api.server'
import { failureStatus, formMessageFor } from '~/lib/forms'
import { EmailConfirmSchema } from '~/lib/schemas/settings'
import { useShellSession } from '~/root'
import type { Route } from './+types/confirm-email'

/**
 * The link of an e-mail change (issue 14, docs/settings.md "E-mail address") opens this page; a
 * button confirms, signed in or not. A GET never confirms, so mail scanners that open links cannot
 * use up the token. An invalid, expired or used link each says which.
 */
export function loader({ request }: Route.LoaderArgs) {
  const params = new URL(request.url).searchParams
  return { token: params.get('token') ?? '', confirmed: params.get('confirmed') === '1' }
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const submission = parseWithZod(formData, { schema: EmailConfirmSchema })
  if (submission.status !== 'success')
    return data({ result: submission.reply({ formErrors: ['This link is not valid. Check that you opened the whole link from the e-mail.'] }) }, { status: 400 })
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const result = await api.POST('/api/settings/user/email/confirm', { body: submission.value })
  if (!result.ok) {
    return data({ result: submission.reply({ formErrors: [formMessageFor(result.error)] }) }, { status: failureStatus(result.error), headers: responseHeaders })
  }
  throw redirect('/auth/confirm-email?confirmed=1', { headers: responseHeaders })
}

export default function ConfirmEmail({ loaderData, actionData }: Route.ComponentProps) {
  const session = useShellSession()
  const [form] = useForm({ id: 'confirm-email', lastResult: actionData?.result, defaultNoValidate: false })
  const next = session ? (
    <Link to="/settings/user" className="text-primary underline">
      Go to your settings
    </Link>
  ) : (
    <Link to="/auth/login" className="text-primary underline">
      Sign in
    </Link>
  )
  if (loaderData.confirmed) {
    return (
      <AuthCard title="E-mail address changed">
        <p className="text-sm">Your e-mail address is changed and verified. Use it from now on to sign in; mail goes there too.</p>
        <p className="mt-6 text-sm">{next}</p>
      </AuthCard>
    )
  }
  if (!loaderData.token) {
    return (
      <AuthCard title="Link incomplete">
        <p className="text-sm">This page needs the link from the e-mail we sent to your new address. Open that link again, or ask for a new one in Settings › User.</p>
        <p className="mt-6 text-sm">{next}</p>
      </AuthCard>
    )
  }
  return (
    <AuthCard title="Confirm your new e-mail address">
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <CsrfInput />
        <input type="hidden" name="token" value={loaderData.token} />
        <FormError id={form.errorId} errors={form.errors} />
        <p className="text-sm">Confirm that this address is yours to make it the one you sign in with.</p>
        <SubmitButton pendingLabel="Confirming…">Confirm e-mail address</SubmitButton>
      </Form>
      <p className="mt-6 text-sm">{next}</p>
    </AuthCard>
  )
}

export function meta() {
  return [{ title: 'Confirm your new e-mail address · Site Portal' }]
}

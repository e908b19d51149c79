import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { useEffect } from 'react'
import { data, Form, Link, redirect, useSearchParams } from 'react-router'
import { AuthCard } from '~/components/auth/auth-card'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { QrCode } from '~/components/ui/qr-code'
import { SubmitButton } from '~/components/ui/submit-button'
import { createServerApi } from '~/lib/api.server'
import { safeRedirectPath } from '~/lib/auth/guard'
import { failureStatus, replyWithApiError } from '~/lib/forms'
import { withQrCode } from '~/lib/qr.server'
import { MfaSchema } from '~/lib/schemas/auth'
import { track } from '~/lib/telemetry'
import type { Route } from './+types/mfa'

type Enrollment = { secret: string; otpauthUri: string; qrSvg: string }

/** The second step of a sign-in: enter the code, or first add the account to an authenticator app. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const redirectTo = safeRedirectPath(new URL(request.url).searchParams.get('redirectTo'))
  const session = await api.GET('/auth/session')
  if (!session.ok) throw redirect('/auth/login', { headers: responseHeaders })
  if (!session.data.requiresMfa) throw redirect(redirectTo, { headers: responseHeaders })
  let enrollment: Enrollment | null = null
  if (session.data.mfaEnrollment) {
    const result = await api.GET('/auth/mfa/enrollment')
    if (result.ok) enrollment = withQrCode(result.data)
  }
  return data({ email: session.data.email, kind: session.data.kind, enrollment }, { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const redirectTo = safeRedirectPath(String(formData.get('redirectTo') ?? ''))
  const submission = parseWithZod(formData, { schema: MfaSchema })
  if (submission.status !== 'success') return data({ result: submission.reply({ hideFields: ['code'] }) }, { status: 400 })
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const result = await api.POST('/auth/mfa/verify', { body: submission.value })
  if (!result.ok) {
    if (result.error.status === 401) throw redirect('/auth/login', { headers: responseHeaders })
    return data({ result: replyWithApiError(submission, result.error, ['code']) }, { status: failureStatus(result.error), headers: responseHeaders })
  }
  throw redirect(redirectTo, { headers: responseHeaders })
}

export default function Mfa({ loaderData, actionData }: Route.ComponentProps) {
  const { enrollment, email } = loaderData
  const [searchParams] = useSearchParams()
  useEffect(
    () => track('web.auth.sign-in.step', { step: enrollment ? 'mfa-enrolment' : 'mfa', mode: loaderData.kind, outcome: actionData ? 'refused' : 'shown' }),
    [enrollment, loaderData.kind, actionData],
  )
  const [form, fields] = useForm({
    id: 'mfa',
    lastResult: actionData?.result,
    defaultNoValidate: false,
    constraint: getZodConstraint(MfaSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: MfaSchema }),
  })
  return (
    <AuthCard title={enrollment ? 'Set up two-factor authentication' : 'Enter your authentication code'}>
      {enrollment ? (
        <div className="mb-6 flex flex-col gap-3 text-sm">
          <p>Your sign-in needs a second step. Add {email} to an authenticator app, then enter the 6-digit code it shows.</p>
          <QrCode svg={enrollment.qrSvg} label="QR code of the authenticator link" />
          <p>
            Scan it with the app. On this phone: <a href={enrollment.otpauthUri} className="text-primary underline">open in your authenticator app</a>. Or enter this key by hand:
          </p>
          <p className="rounded-md bg-surface-muted p-3 font-mono text-base tracking-wider break-all" aria-label="Set-up key">
            {enrollment.secret.match(/.{1,4}/g)?.join(' ')}
          </p>
        </div>
      ) : (
        <p className="mb-6 text-sm">Open your authenticator app and enter the 6-digit code for {email}.</p>
      )}
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <CsrfInput />
        <input type="hidden" name="redirectTo" value={searchParams.get('redirectTo') ?? ''} />
        <FormError id={form.errorId} errors={form.errors} />
        <Field
          label="Authentication code"
          inputProps={{ ...getInputProps(fields.code, { type: 'text' }), inputMode: 'numeric', autoComplete: 'one-time-code', pattern: '[0-9 ]*' }}
          errors={fields.code.errors}
        />
        <SubmitButton pendingLabel="Checking…">Continue</SubmitButton>
      </Form>
      <p className="mt-6 text-sm">
        <Link to="/auth/login" className="text-primary underline">
          Use another account
        </Link>
      </p>
    </AuthCard>
  )
}

export function meta() {
  return [{ title: 'Authentication code · Site Portal' }]
}

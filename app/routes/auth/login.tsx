import { getFormProps, getInputProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { useEffect, useState } from 'react'
import { data, Form, Link, redirect, useSearchParams } from 'react-router'
import { AuthCard } from '~/components/auth/auth-card'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { Banner } from '~/components/ui/banner'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { createServerApi } from '~/lib/api.server'
import { blockedPath } from '~/lib/api/paths'
import { safeRedirectPath } from '~/lib/auth/guard'
import { lastOidcError } from '~/lib/auth/oidc-error.server'
import { failureStatus, replyWithApiError } from '~/lib/forms'
import { LoginSchema } from '~/lib/schemas/auth'
import { OIDC_INTENT, OidcStartSchema } from '~/lib/schemas/oidc'
import { track } from '~/lib/telemetry'
import type { Route } from './+types/login'
import { startCompanySignIn } from './login-oidc.server'

type Mode = 'user' | 'admin'

function modeOf(value: string | null | FormDataEntryValue): Mode {
  return value === 'admin' ? 'admin' : 'user'
}

export async function loader({ request, context }: Route.LoaderArgs) {
  // Identity-provider sign-in (issue 16): why the last one failed, if the callback sent us here.
  const headers = new Headers()
  const oidcError = await lastOidcError(request, headers)
  return data({ oidcEnabled: context.oidcEnabled, oidcError }, { headers })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  if (formData.get('intent') === OIDC_INTENT) return startCompanySignIn(request, context, formData)
  const mode = modeOf(formData.get('mode'))
  const redirectTo = safeRedirectPath(String(formData.get('redirectTo') ?? ''))
  const submission = parseWithZod(formData, { schema: LoginSchema })
  if (submission.status !== 'success') {
    return data({ result: submission.reply({ hideFields: ['password'] }), correlationId: null }, { status: 400 })
  }

  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const result = mode === 'admin' ? await api.POST('/auth/admin/login', { body: submission.value }) : await api.POST('/auth/login', { body: submission.value })
  if (!result.ok) {
    if (result.error.problem?.code === 'KR_USER_BLOCKED') throw redirect(blockedPath(result.error.correlationId), { headers: responseHeaders })
    return data(
      { result: replyWithApiError(submission, result.error, ['password']), correlationId: result.error.correlationId ?? null },
      { status: failureStatus(result.error), headers: responseHeaders },
    )
  }
  if (result.data.requiresMfa) {
    throw redirect(`/auth/mfa?redirectTo=${encodeURIComponent(redirectTo)}`, { headers: responseHeaders })
  }
  throw redirect(redirectTo, { headers: responseHeaders })
}

export default function Login({ actionData, loaderData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams()
  const mode = modeOf(searchParams.get('mode'))
  const redirectTo = searchParams.get('redirectTo') ?? ''
  // Usage telemetry (issue 15): the step and whether it was refused; never the address typed.
  const passwordData = actionData && 'result' in actionData ? actionData : undefined
  useEffect(() => track('web.auth.sign-in.step', { step: 'credentials', mode, outcome: actionData ? 'refused' : 'shown' }), [mode, actionData])
  const [form, fields] = useForm({
    id: `login-${mode}`,
    lastResult: passwordData?.result,
    defaultNoValidate: false,
    constraint: getZodConstraint(LoginSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: LoginSchema }),
  })
  const modeLink = (target: Mode) => {
    const params = new URLSearchParams(searchParams)
    if (target === 'admin') params.set('mode', 'admin')
    else params.delete('mode')
    const query = params.toString()
    return query ? `?${query}` : '.'
  }

  return (
    <AuthCard title={mode === 'admin' ? 'Admin sign-in' : 'Sign in'}>
      <nav aria-label="Sign-in type" className="mb-6 grid grid-cols-2 gap-1 rounded-md bg-surface-muted p-1 text-sm font-medium">
        <Link to={modeLink('user')} aria-current={mode === 'user' ? 'page' : undefined} className={tabClass(mode === 'user')}>
          User sign-in
        </Link>
        <Link to={modeLink('admin')} aria-current={mode === 'admin' ? 'page' : undefined} className={tabClass(mode === 'admin')}>
          Admin sign-in
        </Link>
      </nav>
      {mode === 'admin' ? (
        <p className="mb-4 text-sm text-muted">Administrators always confirm their sign-in with an authentication code.</p>
      ) : null}
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <CsrfInput />
        <input type="hidden" name="mode" value={mode} />
        <input type="hidden" name="redirectTo" value={redirectTo} />
        {searchParams.get('tenantSlug') ? <input type="hidden" name="tenantSlug" value={searchParams.get('tenantSlug') ?? ''} /> : null}
        <FormError id={form.errorId} errors={form.errors} />
        {passwordData?.correlationId ? <p className="text-xs text-muted">Correlation id: {passwordData.correlationId}</p> : null}
        <Field
          label="E-mail address"
          inputProps={{ ...getInputProps(fields.email, { type: 'email' }), autoComplete: 'username', spellCheck: false }}
          errors={fields.email.errors}
        />
        <Field
          label="Password"
          inputProps={{ ...getInputProps(fields.password, { type: 'password' }), autoComplete: 'current-password' }}
          errors={fields.password.errors}
        />
        <SubmitButton pendingLabel="Signing in…">Sign in</SubmitButton>
      </Form>
      {loaderData.oidcEnabled ? (
        <CompanySignIn redirectTo={redirectTo} lastOidcError={loaderData.oidcError} actionData={actionData && 'oidc' in actionData ? actionData.oidc : undefined} />
      ) : null}
      <div className="mt-6 flex flex-col gap-2 text-sm">
        <Link to="/auth/forgot-password" className="text-primary underline">
          Forgot your password?
        </Link>
        <Link to="/auth/register" className="text-primary underline">
          Create an account
        </Link>
      </div>
    </AuthCard>
  )
}

type CompanySignInProps = {
  redirectTo: string
  lastOidcError: { message: string; correlationId?: string | undefined } | null
  actionData:
    | { result: SubmissionResult<string[]>; correlationId: string | null; redirecting?: { authorizationUrl: string; correlationId: string } | undefined }
    | undefined
}

/**
 * Sign-in through the organisation's identity provider (issue 16, docs/identity-provider.md): the
 * organisation's address says whose provider; the action sends the browser there. Works without
 * JavaScript; the last failure (spec §4 lastOidcError) is shown above it in plain words.
 */
function CompanySignIn({ redirectTo, lastOidcError, actionData }: CompanySignInProps) {
  const [searchParams] = useSearchParams()
  const redirecting = actionData?.redirecting
  // Spec §4 "redirecting": the page goes on by itself, exactly once (issue 36: a second
  // authorization request makes the provider cancel the first). A page that arrived with the
  // answer (no JavaScript, or a post before hydration) carries a meta refresh; a page that asked
  // for it with JavaScript navigates with location.assign and renders no meta refresh.
  const [arrivedWithAnswer] = useState(() => redirecting !== undefined)
  useEffect(() => {
    if (redirecting && !arrivedWithAnswer) window.location.assign(redirecting.authorizationUrl)
  }, [redirecting, arrivedWithAnswer])
  const [form, fields] = useForm({
    id: 'login-oidc',
    lastResult: actionData?.result,
    defaultValue: { organisation: searchParams.get('org') ?? '' },
    defaultNoValidate: false,
    constraint: getZodConstraint(OidcStartSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: OidcStartSchema }),
  })
  return (
    <section aria-labelledby="company-sign-in-title" className="mt-6 flex flex-col gap-4 border-t border-border pt-6">
      <div>
        <h2 id="company-sign-in-title" className="text-base font-semibold">
          Sign in with your company account
        </h2>
        <p className="text-sm text-muted">For organisations that sign in through their own identity provider (single sign-on).</p>
      </div>
      {redirecting ? (
        <Banner tone="info" title="Taking you to your company’s sign-in…" correlationId={redirecting.correlationId}>
          {arrivedWithAnswer ? <meta httpEquiv="refresh" content={`0;url=${redirecting.authorizationUrl}`} /> : null}
          <a href={redirecting.authorizationUrl} className="text-primary underline">
            Continue to your company’s sign-in
          </a>{' '}
          if nothing happens.
        </Banner>
      ) : null}
      {lastOidcError && !redirecting ? (
        <Banner tone="critical" title="Signing in with your company account did not work" correlationId={lastOidcError.correlationId}>
          {lastOidcError.message}
        </Banner>
      ) : null}
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <CsrfInput />
        <input type="hidden" name="redirectTo" value={redirectTo} />
        <FormError id={form.errorId} errors={form.errors} />
        {actionData?.correlationId ? <p className="text-xs text-muted">Correlation id: {actionData.correlationId}</p> : null}
        <Field
          label="Your organisation’s address"
          help="The short name in your organisation’s sign-in link: acme in /auth/login?org=acme."
          inputProps={{ ...getInputProps(fields.organisation, { type: 'text' }), autoComplete: 'organization', spellCheck: false, autoCapitalize: 'none' }}
          errors={fields.organisation.errors}
        />
        <SubmitButton variant="secondary" intent={OIDC_INTENT} pendingLabel="Opening your company’s sign-in…">
          Continue to your company’s sign-in
        </SubmitButton>
      </Form>
    </section>
  )
}

function tabClass(active: boolean) {
  return `rounded px-3 py-2 text-center ${active ? 'bg-surface text-text shadow-sm' : 'text-muted hover:text-text'}`
}

export function meta({ location }: Route.MetaArgs) {
  const admin = new URLSearchParams(location.search).get('mode') === 'admin'
  return [{ title: `${admin ? 'Admin sign-in' : 'Sign in'} · Site Portal` }]
}

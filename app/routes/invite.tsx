import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data, Form, Link, redirect } from 'react-router'
import { InviteLandingView, type LandingKind } from '~/components/admin/invites-landing'
import { AuthCard } from '~/components/auth/auth-card'
import { ButtonLink } from '~/components/ui/button-link'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { createServerApi } from '~/lib/api.server'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, formMessageFor, replyWithApiError } from '~/lib/forms'
import { PASSWORD_MIN } from '~/lib/schemas/auth'
import { InviteRegisterSchema } from '~/lib/schemas/admin-invites'
import { useShellSession } from '~/root'
import type { Route } from './+types/invite'
import { idempotencyKeyOf } from './admin/invites.server'

/**
 * The invitation landings (spec §2; docs/admin/invites.md): `/invite/{token}` (route id `invite`)
 * and `/invite/project/{token}` (`project-invite`). Public: they say who invites to what; signed in
 * with the invited address, "Accept invitation"; signed out, "Sign in to accept" (back here after)
 * and, for an organisation invitation, a form that creates the account and joins. Expired,
 * cancelled, used and unknown links each say what happened and what to do.
 */

function kindOf(request: Request): LandingKind {
  return new URL(request.url).pathname.startsWith('/invite/project/') ? 'project' : 'invite'
}

function landingPath(kind: LandingKind, token: string): string {
  return kind === 'project' ? `/invite/project/${encodeURIComponent(token)}` : `/invite/${encodeURIComponent(token)}`
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const kind = kindOf(request)
  const token = params.token
  // The backend's cookies of this call are not passed on: a first visit has no CSRF cookie yet, and
  // this call would mint a second one beside the root loader's, leaving the forms with the other's token.
  const { api } = createServerApi(request, context)
  const result = kind === 'project' ? await api.GET('/invite/project/{token}', { path: { token } }) : await api.GET('/invite/{token}', { path: { token } })
  if (!result.ok && result.error.status !== 404) {
    throw data({ correlationId: result.error.correlationId ?? null }, { status: failureStatus(result.error), statusText: formMessageFor(result.error) })
  }
  return { kind, token, landing: result.ok ? result.data : null, idempotencyKey: crypto.randomUUID() }
}

type ActionData = { intent: 'claim' | 'register'; message?: string; result?: ReturnType<typeof replyWithApiError> }

export async function action({ request, context, params }: Route.ActionArgs) {
  const kind = kindOf(request)
  const token = params.token
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const intent = String(formData.get('intent') ?? '')

  if (intent === 'claim') {
    const claim = { body: { token }, idempotencyKey: idempotencyKeyOf(formData, { token }) }
    const result = kind === 'project' ? await api.POST('/api/project-invites/claim', claim) : await api.POST('/api/invites/claim', claim)
    if (!result.ok) return data<ActionData>({ intent: 'claim', message: formMessageFor(result.error) }, { status: failureStatus(result.error), headers: responseHeaders })
    const { claimed } = result.data
    await setFlash(responseHeaders, {
      tone: 'success',
      message:
        kind === 'project'
          ? `You now have the project ${('projectTitle' in claimed ? claimed.projectTitle : null) ?? 'Untitled Project'} in ${claimed.organisationName}.`
          : `Welcome to ${claimed.organisationName}. You joined as ${claimed.roleKey === 'admin' ? 'an administrator' : 'a member'}.`,
    })
    throw redirect('/dashboard', { headers: responseHeaders })
  }

  if (intent === 'register' && kind === 'invite') {
    const submission = parseWithZod(formData, { schema: InviteRegisterSchema })
    if (submission.status !== 'success') return data<ActionData>({ intent: 'register', result: submission.reply({ hideFields: ['password'] }) }, { status: 400 })
    const result = await api.POST('/api/invites/register', { body: submission.value, idempotencyKey: idempotencyKeyOf(formData, submission.value) })
    if (!result.ok)
      return data<ActionData>(
        { intent: 'register', result: replyWithApiError(submission, result.error, ['password']) },
        { status: failureStatus(result.error), headers: responseHeaders },
      )
    if (result.data.session.requiresMfa) throw redirect(`/auth/mfa?redirectTo=${encodeURIComponent('/dashboard')}`, { headers: responseHeaders })
    await setFlash(responseHeaders, { tone: 'success', message: `Welcome to ${result.data.claimed.organisationName}. Your account is ready.` })
    throw redirect('/dashboard', { headers: responseHeaders })
  }
  throw data('Unknown intent', { status: 400 })
}

export default function Invite({ loaderData, actionData }: Route.ComponentProps) {
  const { kind, token, landing, idempotencyKey } = loaderData
  const session = useShellSession()
  const here = landingPath(kind, token)
  const action = actionData as ActionData | undefined
  if (!landing) {
    return (
      <AuthCard title="This invitation link does not work">
        <p className="text-sm text-text">
          No invitation has this link. Perhaps it was copied only in part, or a newer e-mail replaced it (resending an invitation makes a new link).
        </p>
        <p className="mt-4 text-sm text-muted">Open the link from the newest invitation e-mail, or ask the person who invited you to send it again.</p>
        <p className="mt-6 text-sm">
          <Link to={session ? '/dashboard' : '/auth/login'} className="text-primary underline">
            {session ? 'Go to your dashboard' : 'Sign in'}
          </Link>
        </p>
      </AuthCard>
    )
  }
  const open = landing.status === 'pending' || landing.status === 'active'
  const forAddress = landing.email
  const matches = !forAddress || (session?.email.trim().toLowerCase() ?? '') === forAddress.trim().toLowerCase()
  return (
    <AuthCard title={open ? 'You are invited' : 'This invitation cannot be used'}>
      <InviteLandingView kind={kind} landing={landing} />
      {!open ? (
        <div className="mt-6 flex flex-wrap gap-3">
          <ButtonLink to={session ? '/dashboard' : `/auth/login?redirectTo=${encodeURIComponent('/dashboard')}`} variant="secondary">
            {session ? 'Go to your dashboard' : 'Sign in'}
          </ButtonLink>
        </div>
      ) : session ? (
        matches ? (
          <Form method="post" className="mt-6 flex flex-col gap-3">
            <CsrfInput />
            <input type="hidden" name="idempotencyKey" value={idempotencyKey} />
            {action?.intent === 'claim' && action.message ? <FormError id="claim-error" errors={[action.message]} /> : null}
            <p className="text-sm text-muted">You are signed in as {session.email}.</p>
            <div>
              <SubmitButton intent="claim" pendingLabel="Accepting…">
                Accept invitation
              </SubmitButton>
            </div>
          </Form>
        ) : (
          <div className="mt-6 flex flex-col gap-3 text-sm">
            <p>
              You are signed in as <strong>{session.email}</strong>, but this invitation is for <strong>{forAddress}</strong>. Sign out, then sign in (or create the account) with{' '}
              {forAddress} to accept it.
            </p>
            <Form method="post" action="/auth/logout">
              <CsrfInput />
              <SubmitButton variant="secondary">Sign out</SubmitButton>
            </Form>
          </div>
        )
      ) : (
        <div className="mt-6 flex flex-col gap-6">
          <div>
            <ButtonLink to={`/auth/login?redirectTo=${encodeURIComponent(here)}`}>Sign in to accept</ButtonLink>
            <p className="mt-2 text-sm text-muted">Already have a Site Portal account{forAddress ? ` for ${forAddress}` : ''}? Sign in and you come back here.</p>
          </div>
          {kind === 'invite' && forAddress ? (
            <RegisterForm email={forAddress} token={token} idempotencyKey={idempotencyKey} lastResult={action?.intent === 'register' ? action.result : undefined} />
          ) : (
            <p className="text-sm text-muted">
              No account yet?{' '}
              <Link to="/auth/register" className="text-primary underline">
                Create one
              </Link>
              , then open this link again and accept.
            </p>
          )}
        </div>
      )}
    </AuthCard>
  )
}

function RegisterForm({ email, token, idempotencyKey, lastResult }: { email: string; token: string; idempotencyKey: string; lastResult: ActionData['result'] }) {
  const [form, fields] = useForm({
    id: 'invite-register',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(InviteRegisterSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: InviteRegisterSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4 border-t border-border pt-6">
      <h2 className="text-lg font-semibold">New here? Create your account</h2>
      <p className="text-sm text-muted">Your account will use {email}: the invitation e-mail proved it is yours.</p>
      <CsrfInput />
      <input type="hidden" name="idempotencyKey" value={idempotencyKey} />
      <input type="hidden" name="token" value={token} />
      <FormError id={form.errorId} errors={form.errors} />
      <Field label="Your name" inputProps={{ ...getInputProps(fields.displayName, { type: 'text' }), autoComplete: 'name' }} errors={fields.displayName.errors} />
      <Field
        label="Password"
        help={`At least ${PASSWORD_MIN} characters. A long passphrase is best.`}
        inputProps={{ ...getInputProps(fields.password, { type: 'password' }), autoComplete: 'new-password' }}
        errors={fields.password.errors}
      />
      <div>
        <SubmitButton intent="register" pendingLabel="Creating your account…">
          Create account and join
        </SubmitButton>
      </div>
    </Form>
  )
}

export function meta() {
  return [{ title: 'Invitation · Site Portal' }]
}

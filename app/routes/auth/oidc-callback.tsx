import { Link, redirect } from 'react-router'
import { AuthCard } from '~/components/auth/auth-card'
import { createServerApi } from '~/lib/api.server'
import { leaveOidcError, oidcErrorPath } from '~/lib/auth/oidc-error.server'
import { OIDC_ERROR } from '~/lib/auth/oidc-errors'
import type { Route } from './+types/oidc-callback'
import { oidcMessageFor } from './login-oidc.server'

/** The provider's answer (RFC 6749 §4.1.2, RFC 9207 iss), as the backend's callback call takes it. */
const ANSWER_FIELDS = ['state', 'code', 'iss', 'error', 'error_description'] as const

/**
 * Where the identity provider sends the browser back (issue 16, docs/identity-provider.md). The
 * backend checks the answer and signs in (same cookies and CSRF binding as password sign-in);
 * this page then goes on: to the second factor when it is still due, else where the person was
 * going. A failure goes back to the sign-in page, which says why in plain words (lastOidcError).
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const url = new URL(request.url)
  const answer: Record<string, string> = {}
  for (const name of ANSWER_FIELDS) {
    const value = url.searchParams.get(name)
    if (value !== null) answer[name] = value
  }
  const { api, responseHeaders } = createServerApi(request, context)
  const result = await api.POST('/auth/oidc/callback', { body: answer })
  if (result.ok) {
    const next = result.data.requiresMfa ? `/auth/mfa?redirectTo=${encodeURIComponent(result.data.redirectTo)}` : result.data.redirectTo
    throw redirect(next, { headers: responseHeaders })
  }
  const problem = result.error.problem
  const failure = { code: problem?.code ?? OIDC_ERROR.providerError, message: oidcMessageFor(result.error), correlationId: result.error.correlationId }
  context.logger.info({ event: 'Auth.Oidc.Failed', code: failure.code, correlationId: failure.correlationId }, 'identity-provider sign-in failed')
  await leaveOidcError(responseHeaders, failure)
  const organisation = typeof problem?.organisation === 'string' ? problem.organisation : undefined
  throw redirect(oidcErrorPath(failure, organisation), { headers: responseHeaders })
}

/** Never drawn: the loader always redirects. Kept for a browser that shows the page anyway. */
export default function OidcCallback() {
  return (
    <AuthCard title="Signing you in">
      <p className="text-sm">
        If nothing happens, <Link to="/auth/login" className="text-primary underline">go back to sign in</Link>.
      </p>
    </AuthCard>
  )
}

export function meta() {
  return [{ title: 'Signing in · Site Portal' }]
}

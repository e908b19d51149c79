import { Problem } from '#server/http/problem'
import { OIDC_ERROR, oidcErrorText, type OidcErrorCode } from '~/lib/auth/oidc-errors'

/**
 * The problems of identity-provider sign-in (docs/identity-provider.md "Errors"): each a plain
 * sentence the sign-in page shows as it is (`lastOidcError`). None is a 500: a provider that is
 * down or answers nonsense is a 502, the person's situation a 4xx.
 */
function oidcProblem(status: number, code: OidcErrorCode, detail: string = oidcErrorText(code), field?: string): Problem {
  const title = status === 502 ? 'Bad Gateway' : status === 409 ? 'Conflict' : status === 403 ? 'Forbidden' : 'Sign-in failed'
  return new Problem({ status, title, detail, code, ...(field && { errors: { [field]: [detail] } }) })
}

/** Unknown organisation or no provider set up: the same answer, so neither is revealed. */
export const notOffered = (slug: string) =>
  oidcProblem(400, OIDC_ERROR.notOffered, `There is no sign-in with a company account for “${slug}”. Check the address, or sign in with your e-mail and password.`, 'organisation')

export const notInPlan = (organisationName: string) =>
  oidcProblem(
    403,
    OIDC_ERROR.notInPlan,
    `Sign-in with a company account is part of the Business plan, and ${organisationName} is not on it. Sign in with your e-mail and password, or ask your administrator.`,
    'organisation',
  )

export const flowExpired = () => oidcProblem(400, OIDC_ERROR.flowExpired)
export const flowUsed = () => oidcProblem(409, OIDC_ERROR.flowUsed)
export const providerDown = () => oidcProblem(502, OIDC_ERROR.providerDown)
export const providerError = () => oidcProblem(502, OIDC_ERROR.providerError)
export const accessDenied = () => oidcProblem(403, OIDC_ERROR.accessDenied)

export const emailUnverified = (email: string | undefined) =>
  oidcProblem(
    403,
    OIDC_ERROR.emailUnverified,
    email
      ? `Your company account (${email}) has no verified e-mail address, so we cannot tell which account is yours. Ask your administrator to verify it at your company’s sign-in service.`
      : undefined,
  )

export const notMember = (email: string, organisationName: string) =>
  oidcProblem(403, OIDC_ERROR.notMember, `Your company account (${email}) is not a member of ${organisationName}. Ask an administrator to invite you.`)

export const accountInactive = () => oidcProblem(403, OIDC_ERROR.accountInactive)

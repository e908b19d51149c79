/**
 * Why a sign-in through the identity provider failed, in words a person understands (spec §4
 * `lastOidcError`; docs/identity-provider.md "Errors"). The backend answers these codes with a
 * detail that may name the address and the organisation; the sign-in page falls back to these
 * general texts when it only has the code (a reloaded page, a shared link).
 */
export const OIDC_ERROR = {
  notOffered: 'KR_OIDC_NOT_OFFERED',
  notInPlan: 'KR_OIDC_NOT_IN_PLAN',
  flowExpired: 'KR_OIDC_FLOW_EXPIRED',
  flowUsed: 'KR_OIDC_FLOW_USED',
  providerDown: 'KR_OIDC_PROVIDER_DOWN',
  providerError: 'KR_OIDC_PROVIDER_ERROR',
  accessDenied: 'KR_OIDC_ACCESS_DENIED',
  emailUnverified: 'KR_OIDC_EMAIL_UNVERIFIED',
  notMember: 'KR_OIDC_NOT_MEMBER',
  accountInactive: 'KR_OIDC_ACCOUNT_INACTIVE',
} as const

export type OidcErrorCode = (typeof OIDC_ERROR)[keyof typeof OIDC_ERROR]

const GENERAL: Record<OidcErrorCode, string> = {
  KR_OIDC_NOT_OFFERED: 'That organisation does not offer sign-in with a company account. Check the address, or sign in with your e-mail and password.',
  KR_OIDC_NOT_IN_PLAN: 'Sign-in with a company account is part of the Business plan, which this organisation does not have. Sign in with your e-mail and password, or ask your administrator.',
  KR_OIDC_FLOW_EXPIRED: 'The sign-in took too long or was started in another window. Try again.',
  KR_OIDC_FLOW_USED: 'This sign-in was already completed or cancelled. Start again to sign in.',
  KR_OIDC_PROVIDER_DOWN: 'Your company’s sign-in service did not answer. Try again in a few minutes, or sign in with your e-mail and password.',
  KR_OIDC_PROVIDER_ERROR: 'Your company’s sign-in service sent an answer we could not accept. Try again; if it keeps happening, tell your administrator.',
  KR_OIDC_ACCESS_DENIED: 'The sign-in was cancelled or refused at your company’s sign-in service.',
  KR_OIDC_EMAIL_UNVERIFIED: 'Your company account has no verified e-mail address, so we cannot tell which account is yours. Ask your administrator.',
  KR_OIDC_NOT_MEMBER: 'Your company account is not a member of this organisation. Ask an administrator to invite you.',
  KR_OIDC_ACCOUNT_INACTIVE: 'Your account is blocked or not active. Contact your administrator.',
}

export function isOidcErrorCode(value: unknown): value is OidcErrorCode {
  return typeof value === 'string' && Object.hasOwn(GENERAL, value)
}

/** The general text of a code; for an unknown code, the text of a failed sign-in. */
export function oidcErrorText(code: string | null | undefined): string {
  return isOidcErrorCode(code) ? GENERAL[code] : 'Signing in with your company account did not work. Try again, or sign in with your e-mail and password.'
}

import { createCookie } from 'react-router'
import { authReducer, initialAuthState, type AuthError } from '~/lib/auth/auth-state'
import { isOidcErrorCode, oidcErrorText } from '~/lib/auth/oidc-errors'

/**
 * The sign-in page's `lastOidcError` (spec §3 "Auth state", §4): why the last identity-provider
 * sign-in failed. The callback page redirects to `/auth/login?oidcError=CODE&cid=…` and leaves the
 * backend's exact sentence (which may name the address and the organisation) in this short-lived
 * cookie; the sign-in page shows that sentence when the cookie's code matches the link's, else
 * the code's general text, so a crafted link can never put its own words on our page.
 */
const oidcErrorCookie = createCookie('sp_oidc_error', { path: '/auth/login', httpOnly: true, sameSite: 'lax', maxAge: 60 })

export type OidcFailure = { code: string; message: string; correlationId: string | undefined }

export async function leaveOidcError(headers: Headers, failure: OidcFailure): Promise<void> {
  headers.append('Set-Cookie', await oidcErrorCookie.serialize({ code: failure.code, message: failure.message.slice(0, 500) }))
}

export function oidcErrorPath(failure: OidcFailure, organisation: string | undefined): string {
  const query = new URLSearchParams({ oidcError: failure.code })
  if (failure.correlationId) query.set('cid', failure.correlationId)
  if (organisation) query.set('org', organisation)
  return `/auth/login?${query}`
}

/** The page's auth state after a failed identity-provider redirect (the reducer of spec §4), or null. */
export async function lastOidcError(request: Request, headers: Headers): Promise<AuthError | null> {
  const url = new URL(request.url)
  const code = url.searchParams.get('oidcError')
  if (!code) return null
  const saved: unknown = await oidcErrorCookie.parse(request.headers.get('Cookie'))
  if (saved) headers.append('Set-Cookie', await oidcErrorCookie.serialize('', { maxAge: 0 }))
  const exact = isSaved(saved) && saved.code === code && isOidcErrorCode(code) ? saved.message : undefined
  const cid = url.searchParams.get('cid')
  const error: AuthError = { message: exact ?? oidcErrorText(code), correlationId: cid && /^[A-Za-z0-9._:-]{8,64}$/.test(cid) ? cid : undefined }
  return authReducer(initialAuthState, { type: 'redirectFailed', error }).lastOidcError
}

function isSaved(value: unknown): value is { code: string; message: string } {
  return typeof value === 'object' && value !== null && typeof (value as { code?: unknown }).code === 'string' && typeof (value as { message?: unknown }).message === 'string'
}

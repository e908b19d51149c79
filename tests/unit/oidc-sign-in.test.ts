import { expect, test } from 'vitest'
import { assertsMfa, MFA_AMR_VALUES } from '#server/domain/oidc/mfa-assertion'
import { authReducer, initialAuthState } from '~/lib/auth/auth-state'
import { lastOidcError, leaveOidcError, oidcErrorPath } from '~/lib/auth/oidc-error.server'
import { OIDC_ERROR, oidcErrorText } from '~/lib/auth/oidc-errors'
import { session } from './auth-session.fixture'

/** Identity-provider sign-in (issue 16): the auth state's OIDC transitions, the MFA rule and lastOidcError on the sign-in page. */

test('a redirect that comes back signed in clears the pending flow and the last OIDC error', () => {
  const failed = authReducer(initialAuthState, { type: 'redirectFailed', error: { message: 'Earlier failure' } })
  const redirecting = authReducer(failed, { type: 'startRedirect', correlationId: 'cid-1', redirectTo: '/items' })
  expect(redirecting).toMatchObject({ status: 'redirecting', pendingOidc: { correlationId: 'cid-1', redirectTo: '/items' }, lastOidcError: null })
  const back = authReducer(redirecting, { type: 'setUserSession', session: session() })
  expect(back).toMatchObject({ status: 'authenticated', pendingOidc: null, lastOidcError: null, redirectCorrelationId: 'cid-1' })
})

test('a redirect that fails records the OIDC error, drops the pending flow, and a new redirect starts clean', () => {
  const redirecting = authReducer(initialAuthState, { type: 'startRedirect', correlationId: 'cid-1' })
  const error = { message: 'The sign-in took too long or was started in another window. Try again.', correlationId: 'cid-2' }
  const failed = authReducer(redirecting, { type: 'redirectFailed', error })
  expect(failed).toMatchObject({ status: 'error', pendingOidc: null, lastOidcError: error, lastError: error, session: null })
  const again = authReducer(failed, { type: 'startRedirect', correlationId: 'cid-3' })
  expect(again).toMatchObject({ status: 'redirecting', redirectCorrelationId: 'cid-3', lastOidcError: null, lastError: null, pendingOidc: { correlationId: 'cid-3' } })
  expect(authReducer(failed, { type: 'dismissError' })).toMatchObject({ status: 'anonymous', lastOidcError: null })
})

test('clearing the session while redirecting forgets the pending flow', () => {
  const redirecting = authReducer(initialAuthState, { type: 'startRedirect', correlationId: 'cid-1' })
  expect(authReducer(redirecting, { type: 'clearSession' })).toMatchObject({ status: 'anonymous', pendingOidc: null, redirectCorrelationId: null })
})

test('only amr values that name a second factor count as multi-factor authentication', () => {
  for (const value of MFA_AMR_VALUES) expect(assertsMfa(['pwd', value]), value).toBe(true)
  expect(assertsMfa(['PWD', 'MFA'])).toBe(true)
  for (const weak of [['pwd'], ['pwd', 'sms'], ['swk'], ['pin', 'kba'], [], undefined, 'mfa', [42], null]) expect(assertsMfa(weak), JSON.stringify(weak)).toBe(false)
})

test('the sign-in page shows the backend’s sentence only when its cookie matches the link’s code, else the code’s general text', async () => {
  const failure = { code: OIDC_ERROR.notMember, message: 'Your company account (pat@acme.test) is not a member of Acme. Ask an administrator to invite you.', correlationId: 'corr-12345678' }
  const headers = new Headers()
  await leaveOidcError(headers, failure)
  const cookie = (headers.get('set-cookie') ?? '').split(';')[0] ?? ''
  const path = oidcErrorPath(failure, 'acme')
  expect(path).toBe('/auth/login?oidcError=KR_OIDC_NOT_MEMBER&cid=corr-12345678&org=acme')

  const shown = await lastOidcError(new Request(`http://portal.test${path}`, { headers: { cookie } }), new Headers())
  expect(shown).toEqual({ message: failure.message, correlationId: 'corr-12345678' })
  // A crafted link with another code: the general text of that code, never the cookie's words.
  const other = await lastOidcError(new Request('http://portal.test/auth/login?oidcError=KR_OIDC_FLOW_EXPIRED', { headers: { cookie } }), new Headers())
  expect(other).toEqual({ message: oidcErrorText(OIDC_ERROR.flowExpired), correlationId: undefined })
  expect(await lastOidcError(new Request('http://portal.test/auth/login?oidcError=<b>hi</b>&cid=%0A'), new Headers())).toEqual({
    message: oidcErrorText('unknown'),
    correlationId: undefined,
  })
  expect(await lastOidcError(new Request('http://portal.test/auth/login'), new Headers())).toBeNull()
})

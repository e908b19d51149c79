import { expect, test } from 'vitest'
import { authReducer, initialAuthState, type AuthState } from '~/lib/auth/auth-state'
import { session } from './auth-session.fixture'

const error = { message: 'The identity provider is unreachable.', correlationId: 'cid-e' }

function authenticated(): AuthState {
  return authReducer(initialAuthState, { type: 'hydrate', session: session() })
}

test('the initial state is anonymous with nothing recorded', () => {
  expect(initialAuthState).toEqual({
    status: 'anonymous',
    session: null,
    redirectCorrelationId: null,
    lastError: null,
    lastGuardRedirect: null,
    pendingOidc: null,
    lastOidcError: null,
  })
})

test('starting the redirect records its correlation id and clears the last error', () => {
  const failed = authReducer(initialAuthState, { type: 'redirectFailed', error })
  const state = authReducer(failed, { type: 'startRedirect', correlationId: 'cid-r', redirectTo: '/items' })
  expect(state).toMatchObject({
    status: 'redirecting',
    redirectCorrelationId: 'cid-r',
    lastError: null,
    lastOidcError: null,
    pendingOidc: { correlationId: 'cid-r', redirectTo: '/items' },
  })
})

test('a failed redirect is an error that drops the session', () => {
  const state = authReducer(authenticated(), { type: 'redirectFailed', error })
  expect(state).toMatchObject({ status: 'error', session: null, lastError: error, lastOidcError: error, pendingOidc: null })
})

test('hydrating or setting a session authenticates and clears errors and the guard redirect', () => {
  for (const type of ['hydrate', 'setAdminSession', 'setUserSession'] as const) {
    let state = authReducer(initialAuthState, { type: 'guardRedirect', path: '/admin' })
    state = authReducer(state, { type: 'startRedirect', correlationId: 'cid-r' })
    state = authReducer(state, { type: 'redirectFailed', error })
    const user = session({ kind: type === 'setAdminSession' ? 'admin' : 'user' })
    const next = authReducer(state, { type, session: user })
    expect(next, type).toEqual({
      status: 'authenticated',
      session: user,
      redirectCorrelationId: 'cid-r',
      lastError: null,
      lastGuardRedirect: null,
      pendingOidc: null,
      lastOidcError: null,
    })
  }
})

test('clearing the session is anonymous again', () => {
  const state = authReducer(authenticated(), { type: 'clearSession' })
  expect(state).toMatchObject({ status: 'anonymous', session: null })
})

test('dismissing the error returns to anonymous', () => {
  const failed = authReducer(initialAuthState, { type: 'redirectFailed', error })
  expect(authReducer(failed, { type: 'dismissError' })).toMatchObject({ status: 'anonymous', lastError: null, lastOidcError: null })
})

test('dismissing when there is no error changes nothing', () => {
  const state = authenticated()
  expect(authReducer(state, { type: 'dismissError' })).toBe(state)
})

test('an admin or user refresh stays authenticated with the new session', () => {
  const refreshed = session({ sessionExpiresAtUtc: '2025-01-01T01:00:00Z' })
  for (const type of ['adminRefresh', 'userRefresh'] as const) {
    expect(authReducer(authenticated(), { type, session: refreshed }), type).toMatchObject({ status: 'authenticated', session: refreshed })
  }
})

test('a refresh arriving after a sign-out does not bring the session back', () => {
  const signedOut = authReducer(authenticated(), { type: 'clearSession' })
  expect(authReducer(signedOut, { type: 'userRefresh', session: session() })).toBe(signedOut)
})

test('a guard redirect is recorded', () => {
  expect(authReducer(initialAuthState, { type: 'guardRedirect', path: '/admin/users' }).lastGuardRedirect).toBe('/admin/users')
})

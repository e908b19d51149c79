import { expect, test } from 'vitest'
import { evaluateGuard, loginPath, safeRedirectPath } from '~/lib/auth/guard'
import { session } from './auth-session.fixture'

test('without a session every mode sends to login, keeping the wanted path', () => {
  for (const mode of ['any', 'user', 'admin'] as const) {
    expect(evaluateGuard({ mode, session: null, path: '/items?status=open&page=2' })).toEqual({
      outcome: 'login',
      redirectTo: '/auth/login?redirectTo=%2Fitems%3Fstatus%3Dopen%26page%3D2',
    })
  }
})

test('a session still waiting for its second factor is not signed in', () => {
  expect(evaluateGuard({ mode: 'any', session: session({ requiresMfa: true }), path: '/dashboard' })).toEqual({
    outcome: 'login',
    redirectTo: '/auth/login?redirectTo=%2Fdashboard',
  })
})

test('any and user modes allow every signed-in session', () => {
  for (const mode of ['any', 'user'] as const) {
    expect(evaluateGuard({ mode, session: session(), path: '/projects' })).toEqual({ outcome: 'allow' })
    expect(evaluateGuard({ mode, session: session({ kind: 'admin' }), path: '/projects' })).toEqual({ outcome: 'allow' })
  }
})

test('admin mode allows an admin-capable session or one of kind admin', () => {
  expect(evaluateGuard({ mode: 'admin', session: session({ adminUiAllowed: true }), path: '/admin' })).toEqual({ outcome: 'allow' })
  expect(evaluateGuard({ mode: 'admin', session: session({ kind: 'admin' }), path: '/admin' })).toEqual({ outcome: 'allow' })
})

test('an administrator signed in as a user is sent to the admin login', () => {
  expect(evaluateGuard({ mode: 'admin', session: session({ roles: ['Administrator'] }), path: '/admin/users?limit=50' })).toEqual({
    outcome: 'step-up',
    redirectTo: '/auth/login?mode=admin&redirectTo=%2Fadmin%2Fusers%3Flimit%3D50',
  })
})

test('any other signed-in session is forbidden the admin area', () => {
  expect(evaluateGuard({ mode: 'admin', session: session(), path: '/admin/audit' })).toEqual({
    outcome: 'forbidden',
    redirectTo: '/forbidden/admin?from=%2Fadmin%2Faudit',
  })
})

test('a wanted path that leaves the site is replaced by the dashboard', () => {
  expect(evaluateGuard({ mode: 'any', session: null, path: '//evil.example/x' })).toEqual({
    outcome: 'login',
    redirectTo: '/auth/login?redirectTo=%2Fdashboard',
  })
  expect(loginPath('/items/1')).toBe('/auth/login?redirectTo=%2Fitems%2F1')
})

test('safeRedirectPath keeps same-site paths', () => {
  for (const path of ['/', '/dashboard', '/items/1?tab=photos#p2', '/admin/users?after=a%2Fb']) expect(safeRedirectPath(path)).toBe(path)
})

test('safeRedirectPath refuses anything that could leave the site', () => {
  const unsafe = [
    '//evil.example',
    '/\\evil.example',
    'https://evil.example/',
    'javascript:alert(1)',
    'dashboard',
    '',
    '/\t/evil.example',
    '/\n/evil.example',
    ' /dashboard',
    undefined,
    null,
    42,
  ]
  for (const value of unsafe) expect(safeRedirectPath(value), String(value)).toBe('/dashboard')
  expect(safeRedirectPath('//evil.example', '/')).toBe('/')
})

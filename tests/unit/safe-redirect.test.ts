import fc from 'fast-check'
import { expect, test } from 'vitest'
import { evaluateGuard, loginPath, safeRedirectPath } from '~/lib/auth/guard'

test('a path with characters above U+00FF comes back percent-encoded, usable in a Location header', () => {
  expect(safeRedirectPath('/日本')).toBe('/%E6%97%A5%E6%9C%AC')
  expect(safeRedirectPath('/projects?q=✓')).toBe('/projects?q=%E2%9C%93')
  expect(safeRedirectPath('/items/1#фото')).toBe('/items/1#%D1%84%D0%BE%D1%82%D0%BE')
  expect(() => new Headers({ location: safeRedirectPath('/日本?q=✓') })).not.toThrow()
})

test('an already-encoded path is kept as it is, so encoding twice changes nothing', () => {
  for (const path of ['/%E6%97%A5%E6%9C%AC', '/projects?q=%E2%9C%93', '/admin/users?after=a%2Fb']) expect(safeRedirectPath(path)).toBe(path)
  expect(safeRedirectPath(safeRedirectPath('/日本 x'))).toBe(safeRedirectPath('/日本 x'))
})

test('dot segments that would collapse into another host fall back to the dashboard', () => {
  for (const value of ['/.//evil.example', '/..//evil.example/x', '/./\\evil.example', '/%2e//evil.example']) {
    expect(safeRedirectPath(value), value).toBe('/dashboard')
  }
})

test('the login link the guard builds for a non-Latin path survives its round trip', () => {
  const decision = evaluateGuard({ mode: 'any', session: null, path: '/日本' })

  expect(decision).toEqual({ outcome: 'login', redirectTo: loginPath('/日本') })
  const redirectTo = new URL(decision.outcome === 'login' ? decision.redirectTo : '', 'http://x.invalid').searchParams.get('redirectTo')
  expect(safeRedirectPath(redirectTo)).toBe('/%E6%97%A5%E6%9C%AC')
})

test('whatever the input, the result is a same-site ASCII path or the fallback', () => {
  fc.assert(
    fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }).map((s) => `/${s}`)), (value) => {
      const result = safeRedirectPath(value)
      expect(result).toMatch(/^\/(?![/\\])[\x21-\x7e]*$|^\/$/)
      expect(new URL(result, 'http://portal.invalid').origin).toBe('http://portal.invalid')
      expect(() => new Headers({ location: result })).not.toThrow()
    }),
    { numRuns: 1000 },
  )
})

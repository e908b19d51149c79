import { expect, test } from 'vitest'
import { csrfTokenFromCookies, decodeCookieValue, parseCookieHeader, parseSetCookie, serializeCookies } from '~/lib/api/cookies'

const now = Date.parse('2025-06-01T00:00:00Z')

test('a Cookie header parses by name and serialises back', () => {
  const cookies = parseCookieHeader('a=1; b = two ;broken; c=x=y; a=ignored')
  expect([...cookies]).toEqual([
    ['a', '1'],
    ['b', 'two'],
    ['c', 'x=y'],
  ])
  expect(serializeCookies(cookies)).toBe('a=1; b=two; c=x=y')
  expect(parseCookieHeader(null).size).toBe(0)
})

test('the CSRF token is read from sp_csrf or __Host-sp_csrf', () => {
  expect(csrfTokenFromCookies(parseCookieHeader('sp_csrf=tok.mac'))).toBe('tok.mac')
  expect(csrfTokenFromCookies(parseCookieHeader('__Host-sp_csrf=host.mac'))).toBe('host.mac')
  expect(csrfTokenFromCookies(parseCookieHeader('other=1'))).toBeUndefined()
  expect(csrfTokenFromCookies(parseCookieHeader('sp_csrf='))).toBeUndefined()
})

test('Set-Cookie lines give name, value and whether they delete', () => {
  expect(parseSetCookie('sp_session=abc; Path=/; HttpOnly; SameSite=Lax; Max-Age=1800', now)).toEqual({
    name: 'sp_session',
    value: 'abc',
    expired: false,
  })
  expect(parseSetCookie('sp_session=; Max-Age=0; Path=/', now)?.expired).toBe(true)
  expect(parseSetCookie('sp_session=; Expires=Thu, 01 Jan 1970 00:00:00 GMT', now)?.expired).toBe(true)
  expect(parseSetCookie('sp_session=x; Expires=Thu, 01 Jan 2099 00:00:00 GMT', now)?.expired).toBe(false)
  expect(parseSetCookie('sp_session=x; Max-Age=60; Expires=Thu, 01 Jan 1970 00:00:00 GMT', now)?.expired).toBe(false)
  expect(parseSetCookie('garbage', now)).toBeUndefined()
})

test('cookie values are unquoted and URL-decoded', () => {
  expect(decodeCookieValue('"a%20b"')).toBe('a b')
  expect(decodeCookieValue('%E0%A4%A')).toBe('%E0%A4%A')
  expect(decodeCookieValue('')).toBeUndefined()
})

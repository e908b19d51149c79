import { expect, test } from 'vitest'
import { blockedPath, isUnsafeMethod, needsIdempotencyKey, resolveApiPath, skipsSessionRefresh } from '~/lib/api/paths'

test('paths outside /auth/, /telemetry/, /hub/ and /api/ get the /api prefix', () => {
  expect(resolveApiPath('/items/1')).toBe('/api/items/1')
  expect(resolveApiPath('projects')).toBe('/api/projects')
  expect(resolveApiPath('/views?scope=items')).toBe('/api/views?scope=items')
  expect(resolveApiPath('/settings/user')).toBe('/api/settings/user')
})

test('paths under /auth/, /telemetry/, /hub/ and /api/ are kept', () => {
  expect(resolveApiPath('/auth/session')).toBe('/auth/session')
  expect(resolveApiPath('/telemetry/events')).toBe('/telemetry/events')
  expect(resolveApiPath('/hub/realtime')).toBe('/hub/realtime')
  expect(resolveApiPath('/api/projects')).toBe('/api/projects')
  expect(resolveApiPath('auth/login')).toBe('/auth/login')
})

test('absolute and protocol-relative URLs stay on the client origin', () => {
  expect(resolveApiPath('https://evil.example/x')).toBe('/api/https://evil.example/x')
  expect(resolveApiPath('//evil.example/x')).toBe('/api//evil.example/x')
  expect(new URL(resolveApiPath('//evil.example/x'), 'https://portal.test').origin).toBe('https://portal.test')
})

test('only POST, PUT, PATCH and DELETE are unsafe', () => {
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'post']) expect(isUnsafeMethod(method)).toBe(true)
  for (const method of ['GET', 'HEAD', 'OPTIONS']) expect(isUnsafeMethod(method)).toBe(false)
})

test('unsafe calls of registration, invites, tenants, billing and purchases need an idempotency key', () => {
  const keyed = [
    '/auth/register-self',
    '/api/invites/resend',
    '/api/invites/claim',
    '/api/project-invites/claim',
    '/api/project-invites/codes/claim',
    '/api/projects/p-1/invites/create',
    '/api/tenants',
    '/api/tenants/t-1/license',
    '/api/tenants/t-1/seats/invite',
    '/api/tenants/t-1/admins/invite',
    '/api/seats/s-1/revoke',
    '/api/billing/checkout/session',
    '/api/iap/verify',
    '/api/iap/link/start',
    'tenants',
    'billing/checkout/session',
  ]
  for (const path of keyed) expect(needsIdempotencyKey('POST', path), path).toBe(true)
  expect(needsIdempotencyKey('PATCH', '/api/tenants/t-1/license')).toBe(true)
})

test('safe calls and other areas need no idempotency key', () => {
  expect(needsIdempotencyKey('GET', '/api/tenants/t-1/seats')).toBe(false)
  expect(needsIdempotencyKey('GET', '/api/entitlements/me')).toBe(false)
  expect(needsIdempotencyKey('POST', '/auth/login')).toBe(false)
  expect(needsIdempotencyKey('POST', '/api/projects/p-1/packages')).toBe(false)
  expect(needsIdempotencyKey('POST', '/api/items/1/responses')).toBe(false)
  expect(needsIdempotencyKey('POST', '/auth/register-selfish')).toBe(false)
  expect(needsIdempotencyKey('POST', '/api/tenantsx')).toBe(false)
})

test('no session refresh for the refresh itself, the logins and signing out', () => {
  expect(skipsSessionRefresh('POST', '/auth/session/refresh')).toBe(true)
  expect(skipsSessionRefresh('POST', '/auth/login')).toBe(true)
  expect(skipsSessionRefresh('POST', '/auth/admin/login')).toBe(true)
  expect(skipsSessionRefresh('DELETE', '/auth/session')).toBe(true)
  expect(skipsSessionRefresh('GET', '/auth/session')).toBe(false)
  expect(skipsSessionRefresh('GET', '/items/1')).toBe(false)
})

test('blockedPath carries the correlation id, URL-encoded', () => {
  expect(blockedPath('abc-123')).toBe('/auth/blocked?cid=abc-123')
  expect(blockedPath('a b&c=d')).toBe('/auth/blocked?cid=a%20b%26c%3Dd')
  expect(blockedPath(undefined)).toBe('/auth/blocked')
})

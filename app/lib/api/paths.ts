import type { HttpMethod } from './types'

/** Prefixes that are not under /api (spec §7 "Common to all calls"). */
const UNPREFIXED = ['/auth/', '/telemetry/', '/hub/', '/api/']

/**
 * Spec §7: a relative path not starting with /auth/, /telemetry/, /hub/ or /api/ is prefixed with
 * /api. A missing leading slash is added first (`projects` → `/api/projects`). Every path is
 * relative to the client's origin: `//host` or `https://host` become paths under /api, so the
 * cookies and the CSRF token never travel to another origin.
 */
export function resolveApiPath(path: string): string {
  const absolute = path.startsWith('/') ? path : `/${path}`
  if (UNPREFIXED.some((prefix) => absolute.startsWith(prefix))) return absolute
  return `/api${absolute}`
}

const UNSAFE_METHODS = new Set<string>(['POST', 'PUT', 'PATCH', 'DELETE'])

export function isUnsafeMethod(method: string): boolean {
  return UNSAFE_METHODS.has(method.toUpperCase())
}

/**
 * Spec §5: mutating calls for registration, invites, tenants, billing and purchases carry a unique
 * idempotency key. These are the paths of those areas in spec §7.
 */
const IDEMPOTENT_AREAS = [
  /^\/auth\/register-self(?:[/?]|$)/,
  /^\/api\/invites\//,
  /^\/api\/project-invites\//,
  /^\/api\/projects\/[^/?]+\/invites\//,
  /^\/api\/tenants(?:[/?]|$)/,
  /^\/api\/seats\//,
  /^\/api\/billing\//,
  /^\/api\/iap\//,
]

export function needsIdempotencyKey(method: HttpMethod | string, path: string): boolean {
  if (!isUnsafeMethod(method)) return false
  const resolved = resolveApiPath(path)
  return IDEMPOTENT_AREAS.some((area) => area.test(resolved))
}

export const SESSION_REFRESH_PATH = '/auth/session/refresh'

/** Calls whose 401 means "wrong credentials" or "already gone", never "refresh the session". */
export function skipsSessionRefresh(method: string, path: string): boolean {
  const pathname = resolveApiPath(path).split('?')[0]
  if (pathname === SESSION_REFRESH_PATH || pathname === '/auth/login' || pathname === '/auth/admin/login') return true
  return pathname === '/auth/session' && method.toUpperCase() === 'DELETE'
}

/** Spec §8: a blocked user is sent to /auth/blocked?cid={correlationId}. */
export function blockedPath(correlationId: string | undefined): string {
  if (!correlationId) return '/auth/blocked'
  return `/auth/blocked?cid=${encodeURIComponent(correlationId)}`
}

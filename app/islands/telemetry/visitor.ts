import { ensureClientId } from '~/lib/api/client-id'
import { VISITOR_COOKIE, VISITOR_COOKIE_MAX_AGE_S } from '~/lib/constants'

/** The part of `document` the visitor id needs, so tests can hand in a small fake. */
export interface CookieJar {
  cookie: string
}

/** The raw value of the kr-vis cookie in a `document.cookie` string, if there is one. */
export function readVisitorCookie(cookies: string): string | undefined {
  for (const pair of cookies.split(';')) {
    const at = pair.indexOf('=')
    if (at > 0 && pair.slice(0, at).trim() === VISITOR_COOKIE) return pair.slice(at + 1).trim()
  }
  return undefined
}

/** Spec §9 "Visitor cookie kr-vis": 7 days, path /, SameSite=Lax (and Secure on https). */
export function visitorCookie(id: string, secure: boolean): string {
  return `${VISITOR_COOKIE}=${id}; Max-Age=${VISITOR_COOKIE_MAX_AGE_S}; Path=/; SameSite=Lax${secure ? '; Secure' : ''}`
}

/**
 * The visitor id that correlates this browser's telemetry and errors. A stored id that passes the
 * client id rule of spec §5 is kept, anything else is replaced by a new one. The cookie is written
 * back on every page load, so a visitor who returns within 7 days keeps the same id.
 */
export function loadVisitorId(jar: CookieJar, secure: boolean): string {
  const { id } = ensureClientId(readVisitorCookie(jar.cookie))
  try {
    jar.cookie = visitorCookie(id, secure)
  } catch {
    // Cookies blocked (sandboxed frame): the id then lives for this page only.
  }
  return id
}

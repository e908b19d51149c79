import { COOKIES } from '~/lib/constants'

/** The cookies of a Cookie header (or document.cookie), by name; the first of a name wins. */
export function parseCookieHeader(header: string | null | undefined): Map<string, string> {
  const cookies = new Map<string, string>()
  if (!header) return cookies
  for (const part of header.split(';')) {
    const index = part.indexOf('=')
    if (index <= 0) continue
    const name = part.slice(0, index).trim()
    if (name && !cookies.has(name)) cookies.set(name, part.slice(index + 1).trim())
  }
  return cookies
}

export function serializeCookies(cookies: ReadonlyMap<string, string>): string {
  return Array.from(cookies, ([name, value]) => `${name}=${value}`).join('; ')
}

/** The CSRF token of the double-submit cookie, under either of its names. */
export function csrfTokenFromCookies(cookies: ReadonlyMap<string, string>): string | undefined {
  return decodeCookieValue(cookies.get(COOKIES.csrfHost) ?? cookies.get(COOKIES.csrf))
}

/**
 * The backend's HttpOnly session cookie (`__Host-` prefixed outside development). Pages never read
 * its value; they only ask whether the browser sent one at all.
 */
const SESSION_COOKIE_NAMES = ['sp_session', '__Host-sp_session']

export function hasSessionCookie(cookies: ReadonlyMap<string, string>): boolean {
  return SESSION_COOKIE_NAMES.some((name) => cookies.has(name))
}

export function isCsrfCookieName(name: string): boolean {
  return name === COOKIES.csrf || name === COOKIES.csrfHost
}

export type SetCookie = { name: string; value: string; expired: boolean }

/** The name, value and whether a Set-Cookie line deletes the cookie (Max-Age ≤ 0 or a past Expires). */
export function parseSetCookie(line: string, now: number): SetCookie | undefined {
  const [pair = '', ...attributes] = line.split(';')
  const index = pair.indexOf('=')
  if (index <= 0) return undefined
  const name = pair.slice(0, index).trim()
  const value = pair.slice(index + 1).trim()
  let maxAge: number | undefined
  let expires: number | undefined
  for (const attribute of attributes) {
    const [key = '', attributeValue = ''] = attribute.split('=', 2).map((s) => s.trim())
    const lower = key.toLowerCase()
    if (lower === 'max-age' && /^-?\d+$/.test(attributeValue)) maxAge = Number(attributeValue)
    if (lower === 'expires') {
      const date = Date.parse(attributeValue)
      if (!Number.isNaN(date)) expires = date
    }
  }
  // RFC 6265 §5.3: Max-Age wins over Expires.
  const expired = maxAge !== undefined ? maxAge <= 0 : expires !== undefined && expires <= now
  return { name, value, expired }
}

export function decodeCookieValue(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined
  const unquoted = value.startsWith('"') && value.endsWith('"') && value.length >= 2 ? value.slice(1, -1) : value
  try {
    return decodeURIComponent(unquoted)
  } catch {
    return unquoted
  }
}

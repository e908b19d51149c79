import type { Context } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import type { Config } from '#server/config'

/**
 * Cookie names and attributes in one place. Outside development (https) the names carry the
 * `__Host-` prefix, which browsers only accept with Secure, Path=/ and no Domain.
 */
export type CookieName = 'session' | 'csrf'

export function cookieName(config: Config, name: CookieName): string {
  return config.cookieSecure ? `__Host-sp_${name}` : `sp_${name}`
}

export function readCookie(c: Context, config: Config, name: CookieName): string | undefined {
  return getCookie(c, cookieName(config, name))
}

export function writeCookie(c: Context, config: Config, name: CookieName, value: string, maxAgeSeconds?: number): void {
  setCookie(c, cookieName(config, name), value, {
    path: '/',
    // The CSRF cookie is read by the page's script to echo it in a header; the session never is.
    httpOnly: name === 'session',
    secure: config.cookieSecure,
    sameSite: 'Lax',
    ...(maxAgeSeconds !== undefined && { maxAge: maxAgeSeconds }),
  })
}

export function clearCookie(c: Context, config: Config, name: CookieName): void {
  deleteCookie(c, cookieName(config, name), { path: '/', secure: config.cookieSecure })
}

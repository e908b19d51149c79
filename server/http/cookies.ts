import type { Context } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import type { Config } from '#server/config'

/**
 * Cookie names and attributes in one place. Outside development (https) the names carry the
 * `__Host-` prefix, which browsers only accept with Secure, Path=/ and no Domain.
 */
/** oidc: binds an identity-provider sign-in in progress to the browser that started it (server/domain/oidc/flows.ts). */
export type CookieName = 'session' | 'csrf' | 'oidc'

export function cookieName(config: Config, name: CookieName): string {
  return config.cookieSecure ? `__Host-sp_${name}` : `sp_${name}`
}

export function readCookie(c: Context, config: Config, name: CookieName): string | undefined {
  return getCookie(c, cookieName(config, name))
}

export function writeCookie(c: Context, config: Config, name: CookieName, value: string, maxAgeSeconds?: number): void {
  setCookie(c, cookieName(config, name), value, {
    path: '/',
    // The CSRF cookie is read by the page's script to echo it in a header; the others never are.
    httpOnly: name !== 'csrf',
    secure: config.cookieSecure,
    sameSite: 'Lax',
    ...(maxAgeSeconds !== undefined && { maxAge: maxAgeSeconds }),
  })
}

export function clearCookie(c: Context, config: Config, name: CookieName): void {
  deleteCookie(c, cookieName(config, name), { path: '/', secure: config.cookieSecure })
}

import { parseCookieHeader } from '~/lib/api/cookies'

/**
 * Whether the admin sidebar is collapsed (spec §2: "remembered"; §9: 260 px, 72 px collapsed),
 * kept in a cookie the server reads, so the first paint already has the right width. It is a
 * display preference only: no session, no backend call.
 */
export const SIDEBAR_COOKIE = 'sp_admin_sidebar'
const ONE_YEAR_S = 365 * 24 * 60 * 60

export function sidebarCollapsedIn(cookieHeader: string | null): boolean {
  return parseCookieHeader(cookieHeader).get(SIDEBAR_COOKIE) === 'collapsed'
}

/**
 * The Set-Cookie lines that remember the choice for a year. Path=/, not /admin: with JavaScript a
 * page's loaders are fetched from `<path>.data`, and the control panel's is /admin.data, which a
 * cookie of Path=/admin does not reach (the browser matches a path only up to a "/"), so the
 * sidebar sprang back after each toggle there. The second line ends the cookie that path used to
 * have, which would otherwise come first and win on the admin pages.
 */
export function sidebarCookies(collapsed: boolean, secure: boolean): string[] {
  const flags = `SameSite=Lax${secure ? '; Secure' : ''}`
  return [`${SIDEBAR_COOKIE}=${collapsed ? 'collapsed' : 'expanded'}; Path=/; Max-Age=${ONE_YEAR_S}; ${flags}`, `${SIDEBAR_COOKIE}=; Path=/admin; Max-Age=0; ${flags}`]
}

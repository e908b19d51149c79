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

/** The Set-Cookie that remembers the choice for a year, for the admin pages only. */
export function sidebarCookie(collapsed: boolean, secure: boolean): string {
  return `${SIDEBAR_COOKIE}=${collapsed ? 'collapsed' : 'expanded'}; Path=/admin; Max-Age=${ONE_YEAR_S}; SameSite=Lax${secure ? '; Secure' : ''}`
}

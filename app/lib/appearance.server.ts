import { appearanceSetCookie, type Appearance } from '~/lib/appearance'
import type { ApiClient } from '~/lib/api/types'

/** Cookies are Secure when the page was served over HTTPS (as the client id cookie, app/lib/api.server.ts). */
export function secureCookies(request: Request): boolean {
  return new URL(request.url).protocol === 'https:'
}

/**
 * A device without its own appearance, on a settings page: the account's saved appearance becomes
 * the device's (a cookie), so the next pages paint with it. Asked on settings pages only, so other
 * pages never pay for the call; an account that saved none leaves the device on the defaults.
 */
export async function accountAppearanceForDevice(api: ApiClient, request: Request, responseHeaders: Headers): Promise<Appearance | null> {
  const result = await api.GET('/api/settings/appearance')
  if (!result.ok || !result.data.saved) return null
  responseHeaders.append('set-cookie', appearanceSetCookie(result.data.appearance, { secure: secureCookies(request) }))
  return result.data.appearance
}

/** Stores this appearance on the device. */
export function setDeviceAppearance(responseHeaders: Headers, request: Request, appearance: Appearance): void {
  responseHeaders.append('set-cookie', appearanceSetCookie(appearance, { secure: secureCookies(request) }))
}

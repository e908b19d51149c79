import { isUuid } from '~/lib/schemas/uuid'
/** /admin/devices (issue 13, docs/admin/join-requests-and-devices.md): shapes and the URL query. */

/** GET /api/admin/devices, one row. */
export type AdminDevice = {
  deviceId: string
  platform: string
  name: string | null
  user: { id: string; displayName: string; email: string }
  registeredAtUtc: string
  lastSeenAtUtc: string
  revokedAtUtc: string | null
  activeSessions: number
}

export type DevicePage = { items: AdminDevice[]; nextCursor: string | null; platforms: string[] }

export type DevicesQuery = { includeRevoked: boolean; platform: string | null; userId: string | null; after: string | null }

function param(url: URL, name: string, max: number): string | null {
  const value = url.searchParams.get(name)?.trim()
  return value && value.length <= max ? value : null
}

export function devicesQuery(url: URL): DevicesQuery {
  const userId = param(url, 'userId', 36)
  return {
    includeRevoked: ['true', 'on', '1'].includes(url.searchParams.get('includeRevoked') ?? ''),
    platform: param(url, 'platform', 40),
    userId: userId && isUuid(userId) ? userId : null,
    after: param(url, 'after', 200),
  }
}

function searchOf(query: Partial<DevicesQuery>): URLSearchParams {
  const params = new URLSearchParams()
  if (query.includeRevoked) params.set('includeRevoked', 'true')
  if (query.platform) params.set('platform', query.platform)
  if (query.userId) params.set('userId', query.userId)
  if (query.after) params.set('after', query.after)
  return params
}

export function devicesHref(query: Partial<DevicesQuery>): string {
  const search = searchOf(query).toString()
  return `/admin/devices${search ? `?${search}` : ''}`
}

/** The query of GET /api/admin/devices for the screen's filters. */
export function devicesApiQuery(query: DevicesQuery, limit = 50): URLSearchParams {
  const params = searchOf(query)
  params.set('limit', String(limit))
  return params
}


import { data, redirect } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import { noticeFailure, type ReportingActionData } from '~/components/reporting/report-action'
import { devicesApiQuery, devicesHref, type DevicesQuery } from '~/lib/admin/devices'
import { isUuid } from '~/lib/schemas/uuid'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'

/** /admin/devices: what it loads (the devices, and the people for the filter), and its action (revoke). */

export async function loadDevicesPage(api: ApiClient, query: DevicesQuery, headers: Headers) {
  const [page, members] = await Promise.all([api.GET('/api/admin/devices', { query: devicesApiQuery(query) }), api.GET('/api/members')])
  if (!page.ok) throw loadError(page.error, headers)
  // The people filter is a convenience: without the member list it offers only the one chosen.
  return { ...page.data, people: members.ok ? members.data.items.map((m) => ({ id: m.userId, name: m.displayName, email: m.email })) : [] }
}

export async function revokeDevice(api: ApiClient, formData: FormData, query: DevicesQuery, headers: Headers) {
  const userId = String(formData.get('userId') ?? '')
  const deviceId = String(formData.get('deviceId') ?? '')
  const name = String(formData.get('deviceName') ?? '').slice(0, 200) || 'The device'
  if (!isUuid(userId) || deviceId === '' || deviceId.length > 200) throw data('Choose a device.', { status: 400 })
  const result = await api.DELETE('/api/admin/devices/{userId}/{deviceId}', { path: { userId, deviceId } })
  if (!result.ok) return noticeFailure('revoke', result.error, headers, `${userId}/${deviceId}`)
  await setFlash(headers, { tone: 'success', message: `${name} is revoked: its sessions have ended and it no longer syncs.` })
  throw redirect(devicesHref(query), { headers })
}

export function unknownIntent() {
  return data<ReportingActionData>({ intent: 'unknown' }, { status: 400 })
}

import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, formMessageFor } from '~/lib/forms'
import { SeatRevokeFormSchema } from '~/lib/schemas/licensing'

/** /settings/entitlements (issue 16, docs/licensing.md): what it loads and its one action, revoking a seat. */

export type EntitlementsActionData = { notice: { message: string; correlationId: string | null } }

const SEATS_SHOWN = 200

export async function loadEntitlements(api: ApiClient, headers: Headers) {
  const me = await api.GET('/api/entitlements/me')
  if (!me.ok) throw loadError(me.error, headers)
  if (!me.data.isAdmin) return { isAdmin: false as const }
  const tenant = encodeURIComponent(me.data.tenantId)
  const [seats, invites] = await Promise.all([
    api.GET('/api/tenants/{tenantId}/seats', { path: { tenantId: tenant }, query: { limit: SEATS_SHOWN } }),
    api.GET('/api/tenants/{tenantId}/seats/invites', { path: { tenantId: tenant }, query: { limit: SEATS_SHOWN } }),
  ])
  if (!seats.ok) throw loadError(seats.error, headers)
  if (!invites.ok) throw loadError(invites.error, headers)
  return { isAdmin: true as const, entitlements: me.data, seats: seats.data, invites: invites.data }
}

export async function revokeSeat(api: ApiClient, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: SeatRevokeFormSchema })
  if (submission.status !== 'success') return data<EntitlementsActionData>({ notice: { message: 'Choose a seat to revoke.', correlationId: null } }, { status: 400, headers })
  const result = await api.POST('/api/seats/{seatId}/revoke', { path: { seatId: submission.value.seatId }, idempotencyKey: true })
  if (!result.ok) {
    const correlationId = result.error.correlationId ?? result.error.problem?.correlationId ?? null
    return data<EntitlementsActionData>({ notice: { message: formMessageFor(result.error), correlationId } }, { status: failureStatus(result.error), headers })
  }
  const name = String(formData.get('displayName') ?? '').slice(0, 120) || 'The member'
  await setFlash(headers, { tone: 'success', message: `${name}’s seat is revoked: their access to this organisation has ended. Their records stay.` })
  throw redirect('/settings/entitlements', { headers })
}

import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import type { Invite } from '~/lib/admin/invites'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, formMessageFor } from '~/lib/forms'
import type { Entitlements, RevokeAnswer, SeatPage } from '~/lib/licensing/seats'
import { SeatRevokeFormSchema } from '~/lib/schemas/licensing'

/** /settings/entitlements (issue 16, docs/licensing.md): what it loads and its one action, revoking a seat. */

export type EntitlementsActionData = { notice: { message: string; correlationId: string | null } }

const SEATS_SHOWN = 200

export async function loadEntitlements(api: ApiClient, headers: Headers) {
  const me = await api.get<Entitlements>('/api/entitlements/me')
  if (!me.ok) throw loadError(me.error, headers)
  if (!me.data.isAdmin) return { isAdmin: false as const }
  const tenant = encodeURIComponent(me.data.tenantId)
  const [seats, invites] = await Promise.all([
    api.get<SeatPage>(`/api/tenants/${tenant}/seats?limit=${SEATS_SHOWN}`),
    api.get<{ items: Invite[]; nextCursor: string | null }>(`/api/tenants/${tenant}/seats/invites?limit=${SEATS_SHOWN}`),
  ])
  if (!seats.ok) throw loadError(seats.error, headers)
  if (!invites.ok) throw loadError(invites.error, headers)
  return { isAdmin: true as const, entitlements: me.data, seats: seats.data, invites: invites.data }
}

export async function revokeSeat(api: ApiClient, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: SeatRevokeFormSchema })
  if (submission.status !== 'success') return data<EntitlementsActionData>({ notice: { message: 'Choose a seat to revoke.', correlationId: null } }, { status: 400, headers })
  const result = await api.post<RevokeAnswer>(`/api/seats/${encodeURIComponent(submission.value.seatId)}/revoke`, {}, { idempotencyKey: true })
  if (!result.ok) {
    const correlationId = result.error.correlationId ?? result.error.problem?.correlationId ?? null
    return data<EntitlementsActionData>({ notice: { message: formMessageFor(result.error), correlationId } }, { status: failureStatus(result.error), headers })
  }
  const name = String(formData.get('displayName') ?? '').slice(0, 120) || 'The member'
  await setFlash(headers, { tone: 'success', message: `${name}’s seat is revoked: their access to this organisation has ended. Their records stay.` })
  throw redirect('/settings/entitlements', { headers })
}

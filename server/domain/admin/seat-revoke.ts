import { and, eq } from 'drizzle-orm'
import { memberships } from '#server/db/schema'
import { recordAuditIn } from '#server/domain/audit'
import { seatCounts } from '#server/domain/licensing/seats'
import type { DomainContext } from '#server/domain/tenancy/context'
import { Problem, problems } from '#server/http/problem'
import type { RevokeAnswer } from '~/lib/licensing/seats'
import { isUuid } from '~/lib/schemas/uuid'
import { deactivateUser, type RequestMeta } from './users'

export type RevokedSeat = RevokeAnswer

const noSuchSeat = () => new Problem(problems.notFound('There is no such seat in this organisation.'))

/**
 * POST /api/seats/{seatId}/revoke: the member's access to this organisation ends — the membership
 * is suspended and their sessions here end (the hub closes their connections on its next check,
 * sync and every call answer 401) — through the same rules as deactivating a user
 * (server/domain/admin/users.ts): never yourself, never the last administrator, nothing deleted.
 */
export async function revokeSeat(ctx: DomainContext, seatId: string, meta: RequestMeta): Promise<RevokedSeat> {
  if (!isUuid(seatId)) throw noSuchSeat()
  const [seat] = await ctx.tx
    .select({ userId: memberships.userId, status: memberships.status })
    .from(memberships)
    .where(and(eq(memberships.tenantId, ctx.actor.tenantId), eq(memberships.id, seatId)))
    .limit(1)
  if (!seat) throw noSuchSeat()
  if (seat.userId === ctx.actor.userId) {
    throw new Problem({ status: 409, title: 'Conflict', detail: 'You cannot revoke your own seat.', code: 'KR_SELF_CHANGE', remediation: 'Ask another administrator to do it.' })
  }
  if (seat.status !== 'active') {
    throw new Problem({
      status: 409,
      title: 'Conflict',
      detail: 'This seat is not held: the membership is not active.',
      code: 'KR_SEAT_NOT_HELD',
      remediation: 'Reactivate the member in Administration › Users if they need access again.',
    })
  }
  await deactivateUser(ctx, seat.userId, meta, 'seat-revoke')
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'licensing.seat.revoked',
    targetType: 'Seat',
    targetId: seatId,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data: { userId: seat.userId },
    at: ctx.now,
  })
  return { seatId, userId: seat.userId, status: 'revoked', seats: await seatCounts(ctx.tx, ctx.actor.tenantId, ctx.now) }
}

import { and, asc, count, eq, gt, isNull, sql } from 'drizzle-orm'
import type { Tx } from '#server/db/client'
import { memberships, users } from '#server/db/schema'
import { invites } from '#server/db/schema-admin'
import type { DomainContext } from '#server/domain/tenancy/context'
import { decodeCursor, encodeCursor } from '#server/domain/tenancy/paging'
import { getAdminSettings } from '#server/domain/config/organisation-switches'
import { Problem } from '#server/http/problem'
import { roleKeyLabel } from '~/lib/auth/role'
import type { Seat, SeatCounts, SeatPage, SeatStanding } from '~/lib/licensing/seats'
import { licenceInForce, type LicenceInForce } from './entitlements'

/**
 * Seats (issue 16, docs/licensing.md "Seats"): not rows of their own. Every active member of the
 * organisation holds one; every pending invite (not accepted, not cancelled, not expired) reserves
 * one. Whatever adds an active member or a pending invite — an invite, a seat or admin invite, a
 * project invite that makes someone a member, an approved join request, reactivating a suspended
 * member — first calls `ensureFreeSeat`, unless the organisation switched enforcement off
 * (Settings › Admin › licensing.enforceSeatLimit). Accepting an invite needs no check: its seat
 * was reserved when it was sent.
 */

export async function seatCounts(tx: Tx, tenantId: string, now: Date, inForce?: LicenceInForce): Promise<SeatCounts> {
  const licence = inForce ?? (await licenceInForce(tx, tenantId, now))
  const { used, reserved } = await seatsTaken(tx, tenantId, now)
  return { total: licence.seats, used, reserved, free: Math.max(0, licence.seats - used - reserved) }
}

/**
 * The one answer to "how many seats, how many used, is the limit enforced, on which plan": the
 * control panel, Entitlements, Settings › Admin and Billing all show this (in the words of
 * `seatStandingWords`, app/lib/licensing/seats.ts), so they cannot disagree.
 */
export async function seatStanding(ctx: DomainContext): Promise<SeatStanding> {
  const tenantId = ctx.actor.tenantId
  const force = await licenceInForce(ctx.tx, tenantId, ctx.now)
  const counts = await seatCounts(ctx.tx, tenantId, ctx.now, force)
  const { licensing } = await getAdminSettings(ctx)
  return {
    ...counts,
    enforced: licensing.enforceSeatLimit,
    nearLimit: licensing.warnNearSeatLimit && counts.free <= 1,
    plan: force.plan.key,
    planName: force.plan.name,
    lapsed: force.lapsed,
  }
}

/** Seats held by active members (`used`) and reserved by pending invites (`reserved`); a checkout may not buy fewer than both. */
export async function seatsTaken(tx: Tx, tenantId: string, now: Date): Promise<{ used: number; reserved: number }> {
  const [members] = await tx
    .select({ n: count() })
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.status, 'active')))
  const [pending] = await tx
    .select({ n: count() })
    .from(invites)
    .where(and(eq(invites.tenantId, tenantId), isNull(invites.acceptedAt), isNull(invites.cancelledAt), gt(invites.expiresAt, now)))
  return { used: members?.n ?? 0, reserved: pending?.n ?? 0 }
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`
}

export function seatsExhausted(counts: SeatCounts, licence: LicenceInForce): Problem {
  const whose = licence.lapsed
    ? `Your ${licence.licence.planName} licence has lapsed, so the Free plan’s ${plural(counts.total, 'seat', 'seats')} apply, and all are in use`
    : `All ${plural(counts.total, 'seat', 'seats')} of your ${licence.plan.name} plan are in use`
  const detail = `${whose} (${plural(counts.used, 'member', 'members')}, ${plural(counts.reserved, 'pending invite', 'pending invites')}). Cancel an invite, revoke a seat, or buy more seats in Settings › Billing.`
  return new Problem({
    status: 409,
    title: 'No free seat',
    detail,
    code: 'KR_SEATS_EXHAUSTED',
    remediation: 'Cancel a pending invite, revoke a seat in Settings › Entitlements, or buy more seats in Settings › Billing.',
    extensions: { seats: counts },
  })
}

/**
 * Refuses (409 KR_SEATS_EXHAUSTED) when no seat is free for one more member or invite. Takes the
 * organisation's seat lock first, so two invites racing for the last seat cannot both get it; call
 * it after the other locks of the call (invites, members) and just before the row is written.
 */
export async function ensureFreeSeat(ctx: DomainContext): Promise<void> {
  const tenantId = ctx.actor.tenantId
  await ctx.tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`seats:${tenantId}`}, 0))`)
  const settings = await getAdminSettings(ctx)
  if (!settings.licensing.enforceSeatLimit) return
  const licence = await licenceInForce(ctx.tx, tenantId, ctx.now)
  const counts = await seatCounts(ctx.tx, tenantId, ctx.now, licence)
  if (counts.free < 1) throw seatsExhausted(counts, licence)
}

/** GET /api/tenants/{tenantId}/seats: the members holding a seat, oldest first, with the counts. */
export async function listSeats(ctx: DomainContext, query: { after?: string | undefined; limit: number }): Promise<SeatPage> {
  const cursor = decodeCursor(query.after)
  // The cursor carries milliseconds; rows made by the database's now() have microseconds.
  const since = sql`date_trunc('milliseconds', ${memberships.createdAt})`
  const rows = await ctx.tx
    .select({
      id: memberships.id,
      userId: users.id,
      displayName: users.displayName,
      email: users.email,
      roleKey: memberships.roleKey,
      createdAt: memberships.createdAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(
      and(
        eq(memberships.tenantId, ctx.actor.tenantId),
        eq(memberships.status, 'active'),
        cursor ? sql`(${since}, ${memberships.id}) > (${cursor.createdAt.toISOString()}::timestamptz, ${cursor.id}::uuid)` : undefined,
      ),
    )
    .orderBy(asc(since), asc(memberships.id))
    .limit(query.limit + 1)
  const page = rows.slice(0, query.limit)
  const last = page[page.length - 1]
  return {
    items: page.map(seatView),
    nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null,
    seats: await seatCounts(ctx.tx, ctx.actor.tenantId, ctx.now),
  }
}

function seatView(row: { id: string; userId: string; displayName: string; email: string; roleKey: string; createdAt: Date }): Seat {
  return {
    id: row.id,
    userId: row.userId,
    displayName: row.displayName,
    email: row.email,
    roleKey: row.roleKey,
    roleName: roleKeyLabel(row.roleKey),
    status: 'active',
    sinceUtc: row.createdAt.toISOString(),
  }
}


import { and, desc, eq, isNull, lt, or, sql } from 'drizzle-orm'
import { devices, sessions, users } from '#server/db/schema'
import { recordAuditIn } from '#server/domain/audit'
import type { DomainContext } from '#server/domain/tenancy/context'
import { recordChange } from '#server/domain/tenancy/change-log'
import { decodeCursor, pageOf } from '#server/domain/tenancy/paging'
import { Problem, problems } from '#server/http/problem'
import { endDeviceSessions } from '#server/domain/auth/devices'

/**
 * Devices of the organisation's people (issue 13, docs/admin/join-requests-and-devices.md). A
 * device is registered by its user (POST /auth/devices/register), which also ties the calling
 * session to it (sessions.device_id); revoking it here ends those sessions and its sync.
 */

export type AdminDevice = {
  deviceId: string
  platform: string
  name: string | null
  user: { id: string; displayName: string; email: string }
  registeredAtUtc: string
  lastSeenAtUtc: string
  revokedAtUtc: string | null
  /** Live sessions of this user signed in from this device. */
  activeSessions: number
}

export type AdminDeviceFilter = {
  includeRevoked: boolean
  userId?: string | undefined
  platform?: string | undefined
  after?: string | undefined
  limit: number
}

/** GET /api/admin/devices: newest registration first. */
export async function listAdminDevices(ctx: DomainContext, filter: AdminDeviceFilter): Promise<{ items: AdminDevice[]; nextCursor: string | null }> {
  const cursor = decodeCursor(filter.after)
  const activeSessions = sql<number>`(select count(*)::int from ${sessions} s
    where s.tenant_id = ${devices.tenantId} and s.user_id = ${devices.userId} and s.device_id = ${devices.deviceId}
      and s.revoked_at is null and s.expires_at > ${ctx.now.toISOString()}::timestamptz)`
  const rows = await ctx.tx
    .select({
      id: devices.id,
      createdAt: devices.registeredAt,
      deviceId: devices.deviceId,
      platform: devices.platform,
      name: devices.name,
      userId: devices.userId,
      displayName: users.displayName,
      email: users.email,
      registeredAt: devices.registeredAt,
      lastSeenAt: devices.lastSeenAt,
      revokedAt: devices.revokedAt,
      activeSessions,
    })
    .from(devices)
    .innerJoin(users, eq(users.id, devices.userId))
    .where(
      and(
        eq(devices.tenantId, ctx.actor.tenantId),
        filter.includeRevoked ? undefined : isNull(devices.revokedAt),
        filter.userId ? eq(devices.userId, filter.userId) : undefined,
        filter.platform ? sql`lower(${devices.platform}) = ${filter.platform.toLowerCase()}` : undefined,
        cursor ? or(lt(devices.registeredAt, cursor.createdAt), and(eq(devices.registeredAt, cursor.createdAt), lt(devices.id, cursor.id))) : undefined,
      ),
    )
    .orderBy(desc(devices.registeredAt), desc(devices.id))
    .limit(filter.limit + 1)
  const page = pageOf(rows, filter.limit)
  return {
    items: page.rows.map((r) => ({
      deviceId: r.deviceId,
      platform: r.platform,
      name: r.name,
      user: { id: r.userId, displayName: r.displayName, email: r.email },
      registeredAtUtc: r.registeredAt.toISOString(),
      lastSeenAtUtc: r.lastSeenAt.toISOString(),
      revokedAtUtc: r.revokedAt?.toISOString() ?? null,
      activeSessions: Number(r.activeSessions),
    })),
    nextCursor: page.nextCursor,
  }
}

/** The platforms registered in the organisation, for the list's filter. */
export async function devicePlatforms(ctx: DomainContext): Promise<string[]> {
  const rows = await ctx.tx.selectDistinct({ platform: devices.platform }).from(devices).where(eq(devices.tenantId, ctx.actor.tenantId)).orderBy(devices.platform).limit(50)
  return rows.map((r) => r.platform)
}

/**
 * DELETE /api/admin/devices/{userId}/{deviceId}: the device is revoked (its sync is refused with
 * KR_DEVICE_REVOKED) and every session of that user signed in from it in this organisation ends.
 * Revoking a device that is revoked already answers 204 again and changes nothing (DELETE is
 * idempotent); an unknown device, or one of another organisation, is 404.
 */
export async function revokeAdminDevice(
  ctx: DomainContext,
  userId: string,
  deviceId: string,
  meta: { ip: string; correlationId: string },
): Promise<{ revoked: boolean; sessionsEnded: number }> {
  const tenantId = ctx.actor.tenantId
  const [device] = await ctx.tx
    .select({ id: devices.id, revokedAt: devices.revokedAt })
    .from(devices)
    .where(and(eq(devices.tenantId, tenantId), eq(devices.userId, userId), eq(devices.deviceId, deviceId)))
    .for('update')
  if (!device) throw new Problem(problems.notFound('There is no such device in this organisation.'))
  if (device.revokedAt) return { revoked: false, sessionsEnded: 0 }

  await ctx.tx
    .update(devices)
    .set({ revokedAt: ctx.now })
    .where(and(eq(devices.tenantId, tenantId), eq(devices.id, device.id)))
  const ended = await endDeviceSessions(ctx, userId, deviceId)
  await recordChange(ctx, 'Device', device.id, 'Updated')
  await recordAuditIn(ctx.tx, {
    tenantId,
    actorUserId: ctx.actor.userId,
    action: 'admin.device.revoked',
    targetType: 'Device',
    targetId: deviceId,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data: { userId, sessionsEnded: ended },
    at: ctx.now,
  })
  return { revoked: true, sessionsEnded: ended }
}


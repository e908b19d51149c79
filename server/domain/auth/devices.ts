import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm'
import type { Database, Tx } from '#server/db/client'
import { devices, sessions } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import { Problem } from '#server/http/problem'
import { ERROR_CODES } from '~/lib/constants'
import { recordAudit } from '../audit'
import { recordChange } from '../tenancy/change-log'
import type { DomainContext } from '../tenancy/context'

type Owner = { tenantId: string; userId: string }
/** The caller's session, when the call comes with one: registering ties it to the device. */
type Caller = Owner & { id?: string | undefined }
type Ctx = { ip: string; correlationId: string }

export type DeviceView = {
  deviceId: string
  platform: string
  name: string | null
  registeredAtUtc: string
  lastSeenAtUtc: string
  revokedAtUtc: string | null
}

const columns = {
  deviceId: devices.deviceId,
  platform: devices.platform,
  name: devices.name,
  registeredAt: devices.registeredAt,
  lastSeenAt: devices.lastSeenAt,
  revokedAt: devices.revokedAt,
}

function view(row: { deviceId: string; platform: string; name: string | null; registeredAt: Date; lastSeenAt: Date; revokedAt: Date | null }): DeviceView {
  return {
    deviceId: row.deviceId,
    platform: row.platform,
    name: row.name,
    registeredAtUtc: row.registeredAt.toISOString(),
    lastSeenAtUtc: row.lastSeenAt.toISOString(),
    revokedAtUtc: row.revokedAt?.toISOString() ?? null,
  }
}

/** The signed-in user's own devices in their organisation. */
export async function listDevices(db: Database, owner: Owner, includeRevoked: boolean): Promise<DeviceView[]> {
  const rows = await withTenant(db, owner.tenantId, (tx) =>
    tx
      .select(columns)
      .from(devices)
      .where(and(eq(devices.userId, owner.userId), includeRevoked ? undefined : isNull(devices.revokedAt)))
      .orderBy(desc(devices.lastSeenAt)),
  )
  return rows.map(view)
}

/**
 * Registering the same device again updates it (and brings a revoked one back). The calling
 * session is tied to the device (sessions.device_id), so that revoking the device ends it.
 */
export async function registerDevice(
  db: Database,
  owner: Caller,
  input: { deviceId: string; platform: string; name?: string | undefined; pushToken?: string | undefined },
  ctx: Ctx,
  now: Date,
): Promise<DeviceView> {
  const [row] = await withTenant(db, owner.tenantId, async (tx) => {
    const stored = await tx
      .insert(devices)
      .values({
        tenantId: owner.tenantId,
        userId: owner.userId,
        deviceId: input.deviceId,
        platform: input.platform,
        name: input.name,
        pushToken: input.pushToken,
        registeredAt: now,
        lastSeenAt: now,
      })
      .onConflictDoUpdate({
        target: [devices.tenantId, devices.userId, devices.deviceId],
        set: { platform: input.platform, name: input.name ?? null, pushToken: input.pushToken ?? null, lastSeenAt: now, revokedAt: null },
      })
      .returning({ ...columns, id: devices.id })
    // The Administration area's device list updates live.
    if (stored[0]) await recordChange({ tx, actor: { tenantId: owner.tenantId, userId: owner.userId, roleKey: 'read-only' }, now }, 'Device', stored[0].id, 'Updated')
    if (owner.id) {
      await tx
        .update(sessions)
        .set({ deviceId: input.deviceId })
        .where(and(eq(sessions.id, owner.id), eq(sessions.userId, owner.userId), eq(sessions.tenantId, owner.tenantId)))
    }
    return stored
  })
  if (!row) throw new Error('device not stored')
  await recordAudit(db, {
    tenantId: owner.tenantId,
    actorUserId: owner.userId,
    action: 'auth.device.registered',
    targetType: 'Device',
    targetId: input.deviceId,
    ip: ctx.ip,
    correlationId: ctx.correlationId,
  })
  return view(row)
}

/**
 * The user revokes one of their devices: its sync is refused from now on, and the other sessions
 * signed in from it end. The calling session is kept (the person is using it to do this).
 */
export async function revokeDevice(db: Database, owner: Caller, deviceId: string, ctx: Ctx, now: Date): Promise<void> {
  const revoked = await withTenant(db, owner.tenantId, async (tx) => {
    const rows = await tx
      .update(devices)
      .set({ revokedAt: now })
      .where(and(eq(devices.userId, owner.userId), eq(devices.deviceId, deviceId), isNull(devices.revokedAt)))
      .returning({ deviceId: devices.deviceId, id: devices.id })
    if (rows[0]) {
      await endDeviceSessions({ tx, now, actor: owner }, owner.userId, deviceId, owner.id)
      await recordChange({ tx, actor: { tenantId: owner.tenantId, userId: owner.userId, roleKey: 'read-only' }, now }, 'Device', rows[0].id, 'Updated')
    }
    return rows
  })
  if (revoked.length === 0) throw new Problem({ status: 404, title: 'Not found', detail: 'The requested resource was not found.', code: 'KR_NOT_FOUND' })
  await recordAudit(db, {
    tenantId: owner.tenantId,
    actorUserId: owner.userId,
    action: 'auth.device.revoked',
    targetType: 'Device',
    targetId: deviceId,
    ip: ctx.ip,
    correlationId: ctx.correlationId,
  })
}

/** How stale a device's lastSeenAt may be before a sync call writes it again (one write a minute at most). */
const SEEN_EVERY_MS = 60_000

/**
 * A sync call from a device (header X-Device-Id) inside the caller's tenant transaction: a device
 * of this user that was revoked is refused (403 KR_DEVICE_REVOKED, the client drops its local copy);
 * a registered one is marked seen; an id not registered yet passes (the client registers it).
 */
export async function ensureSyncDevice(tx: Tx, owner: Owner, deviceId: string, now: Date): Promise<void> {
  const [row] = await tx
    .select({ revokedAt: devices.revokedAt, lastSeenAt: devices.lastSeenAt })
    .from(devices)
    .where(and(eq(devices.tenantId, owner.tenantId), eq(devices.userId, owner.userId), eq(devices.deviceId, deviceId)))
  if (!row) return
  if (row.revokedAt) {
    throw new Problem({
      status: 403,
      title: 'Forbidden',
      detail: 'This device was signed out of sync. Sign in again to use it.',
      code: ERROR_CODES.deviceRevoked,
      remediation: 'Delete the local copy; register the device again after signing in.',
    })
  }
  if (now.getTime() - row.lastSeenAt.getTime() >= SEEN_EVERY_MS) {
    await tx
      .update(devices)
      .set({ lastSeenAt: now })
      .where(and(eq(devices.tenantId, owner.tenantId), eq(devices.userId, owner.userId), eq(devices.deviceId, deviceId)))
  }
}

/** Ends the live sessions of this user signed in from this device in this organisation; how many. */
export async function endDeviceSessions(
  ctx: Pick<DomainContext, 'tx' | 'now'> & { actor: { tenantId: string } },
  userId: string,
  deviceId: string,
  exceptSessionId?: string,
): Promise<number> {
  const ended = await ctx.tx
    .update(sessions)
    .set({ revokedAt: ctx.now })
    .where(
      and(
        eq(sessions.tenantId, ctx.actor.tenantId),
        eq(sessions.userId, userId),
        eq(sessions.deviceId, deviceId),
        isNull(sessions.revokedAt),
        gt(sessions.maxExpiresAt, ctx.now),
        exceptSessionId ? sql`${sessions.id} <> ${exceptSessionId}` : undefined,
      ),
    )
    .returning({ id: sessions.id })
  return ended.length
}

import { and, desc, eq, gt, isNull, ne } from 'drizzle-orm'
import { devices, sessions } from '#server/db/schema'
import { recordAuditIn } from '#server/domain/audit'
import type { DomainContext } from '#server/domain/tenancy/context'
import { Problem, problems } from '#server/http/problem'
import { detectClientOs } from '~/lib/client-os'
import type { AccountSession, AccountSessions } from '~/lib/settings/settings'
import type { Meta } from './user'

/**
 * Your sessions and devices (issue 14, docs/settings.md "Sessions and devices"): every live
 * sign-in of this person, in any of their organisations, and signing them out. Another person's
 * session is not found.
 */

/** A short reading of a User-Agent: the browser's name, nothing finer is needed. */
export function browserOf(userAgent: string | null): string {
  if (!userAgent) return 'Unknown browser'
  if (/edg\//i.test(userAgent)) return 'Edge'
  if (/opr\//i.test(userAgent)) return 'Opera'
  if (/firefox\//i.test(userAgent)) return 'Firefox'
  if (/chrome\/|crios\//i.test(userAgent)) return 'Chrome'
  if (/safari\//i.test(userAgent)) return 'Safari'
  return 'Unknown browser'
}

const live = (ctx: DomainContext) => and(eq(sessions.userId, ctx.actor.userId), isNull(sessions.revokedAt), gt(sessions.expiresAt, ctx.now), eq(sessions.requiresMfa, false))

/** GET /api/settings/sessions: newest activity first, this one marked current. */
export async function listSessions(ctx: DomainContext, currentSessionId: string): Promise<AccountSessions> {
  const rows = await ctx.tx
    .select({
      id: sessions.id,
      kind: sessions.kind,
      ip: sessions.ip,
      userAgent: sessions.userAgent,
      issuedAt: sessions.issuedAt,
      lastSeenAt: sessions.lastSeenAt,
      expiresAt: sessions.expiresAt,
      deviceId: sessions.deviceId,
      deviceName: devices.name,
      platform: devices.platform,
    })
    .from(sessions)
    // Devices are per organisation: only this organisation's registration is visible (row-level security).
    .leftJoin(devices, and(eq(devices.tenantId, sessions.tenantId), eq(devices.userId, sessions.userId), eq(devices.deviceId, sessions.deviceId)))
    .where(live(ctx))
    .orderBy(desc(sessions.lastSeenAt), desc(sessions.issuedAt))
    .limit(100)
  const items: AccountSession[] = rows.map((r) => ({
    id: r.id,
    current: r.id === currentSessionId,
    kind: r.kind === 'admin' ? 'admin' : 'user',
    browser: browserOf(r.userAgent),
    os: detectClientOs(r.userAgent),
    ip: r.ip,
    device: r.deviceId ? { deviceId: r.deviceId, name: r.deviceName, platform: r.platform ?? 'unknown' } : null,
    signedInAtUtc: r.issuedAt.toISOString(),
    lastSeenAtUtc: r.lastSeenAt.toISOString(),
    expiresAtUtc: r.expiresAt.toISOString(),
  }))
  // The current session first: it is the one people look for.
  items.sort((a, b) => Number(b.current) - Number(a.current))
  return { items }
}

async function auditRevoked(ctx: DomainContext, meta: Meta, data: Record<string, unknown>): Promise<void> {
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'auth.sessions.revoked',
    targetType: 'User',
    targetId: ctx.actor.userId,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data,
    at: ctx.now,
  })
}

/** POST /api/settings/sessions/revoke-others: every other session of this person ends. */
export async function revokeOtherSessions(ctx: DomainContext, currentSessionId: string, meta: Meta): Promise<{ revoked: number }> {
  const ended = await ctx.tx
    .update(sessions)
    .set({ revokedAt: ctx.now })
    .where(and(eq(sessions.userId, ctx.actor.userId), isNull(sessions.revokedAt), ne(sessions.id, currentSessionId)))
    .returning({ id: sessions.id })
  await auditRevoked(ctx, meta, { scope: 'others', count: ended.length })
  return { revoked: ended.length }
}

/** DELETE /api/settings/sessions/{id}: one session of this person ends (this one too, which signs out). */
export async function revokeSession(ctx: DomainContext, sessionId: string, meta: Meta): Promise<void> {
  const [ended] = await ctx.tx
    .update(sessions)
    .set({ revokedAt: ctx.now })
    .where(and(eq(sessions.id, sessionId), eq(sessions.userId, ctx.actor.userId), isNull(sessions.revokedAt)))
    .returning({ id: sessions.id })
  if (!ended) throw new Problem(problems.notFound('There is no such session of yours (it may have ended already).'))
  await auditRevoked(ctx, meta, { scope: 'one', sessionId })
}

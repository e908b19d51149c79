import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm'
import { authTokens, mfaSecrets, tenants, users } from '#server/db/schema'
import { recordAuditIn } from '#server/domain/audit'
import type { DomainContext } from '#server/domain/tenancy/context'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { UserSettings } from '~/lib/settings/settings'

/** /settings/user (issue 14, docs/settings.md "Your account"): who you are. */

export type Meta = { ip: string; correlationId: string }

export type ProfilePatch = { displayName?: string | undefined; firstName?: string | null | undefined; lastName?: string | null | undefined; position?: string | null | undefined }

/** Whether two-factor authentication is required of this person here (their own flag or the organisation's). */
export async function mfaEnforced(ctx: DomainContext): Promise<boolean> {
  const [row] = await ctx.tx
    .select({ user: users.mfaEnforced, tenant: tenants.mfaEnforced })
    .from(users)
    .innerJoin(tenants, eq(tenants.id, ctx.actor.tenantId))
    .where(eq(users.id, ctx.actor.userId))
  return Boolean(row?.user || row?.tenant)
}

/** GET /api/settings/user. */
export async function getUserSettings(ctx: DomainContext): Promise<UserSettings> {
  const [user] = await ctx.tx
    .select({ id: users.id, email: users.email, displayName: users.displayName, firstName: users.firstName, lastName: users.lastName, position: users.position })
    .from(users)
    .where(eq(users.id, ctx.actor.userId))
  if (!user) throw new Error('a session without its user')
  const [pending] = await ctx.tx
    .select({ newEmail: authTokens.newEmail, expiresAt: authTokens.expiresAt })
    .from(authTokens)
    .where(and(eq(authTokens.userId, user.id), eq(authTokens.purpose, 'change-email'), isNull(authTokens.usedAt), gt(authTokens.expiresAt, ctx.now)))
    .orderBy(desc(authTokens.createdAt))
    .limit(1)
  const [secret] = await ctx.tx.select({ confirmedAt: mfaSecrets.confirmedAt }).from(mfaSecrets).where(eq(mfaSecrets.userId, user.id))
  return {
    userId: user.id,
    email: user.email,
    displayName: user.displayName,
    firstName: user.firstName,
    lastName: user.lastName,
    position: user.position,
    pendingEmail: pending?.newEmail ? { newEmail: pending.newEmail, expiresAtUtc: pending.expiresAt.toISOString() } : null,
    mfa: { enabled: Boolean(secret?.confirmedAt), pending: Boolean(secret && !secret.confirmedAt), enforced: await mfaEnforced(ctx) },
  }
}

/** Absent: the value before; null or blank: cleared. */
const edited = (value: string | null | undefined, before: string | null) => (value === undefined ? before : value === null || value.trim() === '' ? null : value.trim())

/** PATCH /api/settings/user: names and position; only the fields sent change. */
export async function patchUserSettings(ctx: DomainContext, patch: ProfilePatch, meta: Meta): Promise<UserSettings> {
  const before = await getUserSettings(ctx)
  const next = {
    displayName: patch.displayName?.trim() ?? before.displayName,
    firstName: edited(patch.firstName, before.firstName),
    lastName: edited(patch.lastName, before.lastName),
    position: edited(patch.position, before.position),
  }
  const changed = (Object.keys(next) as (keyof typeof next)[]).filter((key) => next[key] !== before[key])
  if (changed.length === 0) return before
  await ctx.tx
    .update(users)
    // A change of the person: an administrator's form opened before it is now stale (issue 36 §4).
    .set({ ...next, revision: sql`${users.revision} + 1`, updatedBy: ctx.actor.userId, updatedAt: ctx.now })
    .where(eq(users.id, ctx.actor.userId))
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'settings.user.changed',
    targetType: 'User',
    targetId: ctx.actor.userId,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data: Object.fromEntries(changed.map((key) => [key, { from: before[key], to: next[key] }])),
    at: ctx.now,
  })
  await recordChange(ctx, 'User', ctx.actor.userId, 'Updated')
  return { ...before, ...next }
}

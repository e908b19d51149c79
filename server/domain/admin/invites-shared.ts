import { and, eq, sql } from 'drizzle-orm'
import type { Database, Tx } from '#server/db/client'
import { memberships, tenants, users } from '#server/db/schema'
import { recordAuditIn, type AuditAction } from '#server/domain/audit'
import type { RoleKey } from '#server/domain/tenancy/roles'
import { ensureFreeSeat } from '#server/domain/licensing/seats'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import { Problem } from '#server/http/problem'
import { roleKeyLabel } from '~/lib/auth/role'

/** What the invite calls need of the request: for the audit, and the portal's address for the links in mails. */
export type RequestMeta = { ip: string; correlationId: string; publicUrl: string }

export const roleName = roleKeyLabel

export function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null
}

/** An audit entry of the invite calls, in the caller's tenant transaction. */
export async function auditInvite(ctx: DomainContext, meta: RequestMeta, action: AuditAction, targetType: string, targetId: string, data: Record<string, unknown>): Promise<void> {
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action,
    targetType,
    targetId,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data,
    at: ctx.now,
  })
}

export async function organisationOf(db: Database, tenantId: string): Promise<{ id: string; name: string; slug: string; mfaEnforced: boolean }> {
  const [tenant] = await db.select({ id: tenants.id, name: tenants.name, slug: tenants.slug, mfaEnforced: tenants.mfaEnforced }).from(tenants).where(eq(tenants.id, tenantId))
  if (!tenant) throw new Error('invite of a tenant that does not exist')
  return tenant
}

export async function displayNameOf(db: Database, userId: string | null): Promise<string | null> {
  if (!userId) return null
  const [user] = await db.select({ displayName: users.displayName }).from(users).where(eq(users.id, userId))
  return user?.displayName ?? null
}

/** The account of an address, whatever its case. */
export async function userByEmail(db: Database, email: string): Promise<{ id: string; email: string; displayName: string; status: string } | undefined> {
  const [user] = await db
    .select({ id: users.id, email: users.email, displayName: users.displayName, status: users.status })
    .from(users)
    .where(sql`lower(${users.email}) = ${email.trim().toLowerCase()}`)
    .limit(1)
  return user
}

/** Whether the person belongs to any organisation yet (their first one becomes their default). */
export async function hasAnyMembership(db: Database, userId: string): Promise<boolean> {
  const [row] = await db.select({ id: memberships.id }).from(memberships).where(eq(memberships.userId, userId)).limit(1)
  return row !== undefined
}

export function alreadyMember(email?: string): Problem {
  return new Problem({
    status: 409,
    title: 'Conflict',
    detail: email ? `${email} is already a member of this organisation.` : 'You are already a member of this organisation.',
    code: 'KR_ALREADY_MEMBER',
    ...(email && { errors: { email: [`${email} is already a member of this organisation.`] } }),
  })
}

export function membershipSuspended(): Problem {
  return new Problem({
    status: 403,
    title: 'Forbidden',
    detail: 'Your membership of this organisation is suspended. Ask one of its administrators to reactivate it.',
    code: 'KR_MEMBERSHIP_SUSPENDED',
  })
}

/**
 * Makes the person an active member with the role, inside the organisation's transaction. An
 * active member keeps their membership and role (`joined: false`); a suspended one is refused
 * when `reactivate` is false (a code handed out on site must not undo an administrator's
 * suspension), else reactivated with the role; an `invited` one becomes active. Becoming active
 * needs a free seat unless `seatReserved` (an invite held it).
 */
export async function joinOrganisation(
  ctx: DomainContext,
  input: { userId: string; roleKey: RoleKey; isDefault: boolean; reactivate: boolean; seatReserved?: boolean },
): Promise<{ joined: boolean; roleKey: RoleKey }> {
  const tx: Tx = ctx.tx
  const [existing] = await tx
    .select({ id: memberships.id, status: memberships.status, roleKey: memberships.roleKey })
    .from(memberships)
    .where(and(eq(memberships.tenantId, ctx.actor.tenantId), eq(memberships.userId, input.userId)))
    .for('update')
  if (existing?.status === 'active') return { joined: false, roleKey: existing.roleKey as RoleKey }
  if (existing?.status === 'suspended' && !input.reactivate) throw membershipSuspended()
  // A new active member takes a seat, unless an invite reserved it (docs/licensing.md "Seats").
  if (!input.seatReserved) await ensureFreeSeat(ctx)
  if (existing) {
    await tx
      .update(memberships)
      .set({ status: 'active', roleKey: input.roleKey, updatedAt: ctx.now })
      .where(and(eq(memberships.tenantId, ctx.actor.tenantId), eq(memberships.id, existing.id)))
    await recordChange(ctx, 'Membership', existing.id, 'Updated')
    return { joined: true, roleKey: input.roleKey }
  }
  const [created] = await tx
    .insert(memberships)
    .values({ tenantId: ctx.actor.tenantId, userId: input.userId, roleKey: input.roleKey, status: 'active', isDefault: input.isDefault, createdAt: ctx.now, updatedAt: ctx.now })
    .returning({ id: memberships.id })
  if (!created) throw new Error('membership not created')
  await recordChange(ctx, 'Membership', created.id, 'Created')
  return { joined: true, roleKey: input.roleKey }
}

/** A claim's link is no longer usable: 410 Gone, with what happened and what to do. */
export function gone(code: string, detail: string, remediation: string): Problem {
  return new Problem({ status: 410, title: 'Gone', detail, code, remediation })
}

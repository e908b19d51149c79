import { and, eq } from 'drizzle-orm'
import type { Database, Tx } from '#server/db/client'
import { memberships } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import { Problem } from '#server/http/problem'
import type { RoleKey } from '#server/domain/tenancy/roles'
import { readScope, type Membership } from '#server/domain/tenancy/request-scope'

/** Who acts, in which tenant, with which membership role. */
export type Actor = { tenantId: string; userId: string; roleKey: RoleKey }

/**
 * What every reporting domain function receives first: one tenant transaction (row-level security
 * on, app.tenant_id set), the actor and the clock. A call either stores everything or nothing.
 */
export type DomainContext = { tx: Tx; actor: Actor; now: Date }

/**
 * Runs `work` in a tenant transaction as the session's member; a member no longer active is refused.
 * A read of a page request joins the page's one tenant transaction (request-scope.ts), whose
 * membership was read once for all its reads.
 */
export async function asMember<T>(
  db: Database,
  session: { tenantId: string; userId: string },
  now: Date,
  work: (ctx: DomainContext) => Promise<T>,
): Promise<T> {
  const asActive = (tx: Tx, membership: Membership | undefined) => {
    if (!membership || membership.status !== 'active') {
      throw new Problem({
        status: 403,
        title: 'Forbidden',
        detail: 'Your membership of this organisation is not active.',
        code: 'KR-TENANT-MEMBERSHIP-INACTIVE',
      })
    }
    return work({ tx, actor: { tenantId: session.tenantId, userId: session.userId, roleKey: membership.roleKey as RoleKey }, now })
  }
  const shared = readScope.getStore()
  if (shared) return shared.run(db, session.tenantId, session.userId, openMember, asActive)
  return withTenant(db, session.tenantId, async (tx) => asActive(tx, await membershipOf(tx, session.tenantId, session.userId)))
}

/**
 * A read of the tenant that needs no active membership (the session's own view, the telemetry
 * switches): it joins the page's shared read transaction when there is one, and is told the
 * membership that transaction read; otherwise it runs in a tenant transaction of its own.
 */
export async function asTenantReader<T>(
  db: Database,
  session: { tenantId: string; userId: string },
  work: (tx: Tx, membership: Membership | undefined) => Promise<T>,
): Promise<T> {
  const shared = readScope.getStore()
  if (shared) return shared.run(db, session.tenantId, session.userId, openMember, work)
  return withTenant(db, session.tenantId, async (tx) => work(tx, undefined))
}

async function membershipOf(tx: Tx, tenantId: string, userId: string): Promise<Membership | undefined> {
  const [membership] = await tx
    .select({ roleKey: memberships.roleKey, status: memberships.status })
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId)))
    .limit(1)
  return membership
}

/** Begins a shared read transaction: the tenant's settings and the member's membership, read once. */
function openMember(db: Database, tenantId: string, userId: string, inside: (tx: Tx, membership: Membership | undefined) => Promise<void>): Promise<void> {
  return withTenant(db, tenantId, async (tx) => inside(tx, await membershipOf(tx, tenantId, userId)))
}

/** Where a call came from, as the audit log records it. */
export type RequestMeta = { ip: string; correlationId: string }

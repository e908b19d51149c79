import { and, eq } from 'drizzle-orm'
import type { Database, Tx } from '#server/db/client'
import { memberships } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import { Problem } from '#server/http/problem'
import type { RoleKey } from '#server/domain/tenancy/roles'

/** Who acts, in which tenant, with which membership role. */
export type Actor = { tenantId: string; userId: string; roleKey: RoleKey }

/**
 * What every reporting domain function receives first: one tenant transaction (row-level security
 * on, app.tenant_id set), the actor and the clock. A call either stores everything or nothing.
 */
export type DomainContext = { tx: Tx; actor: Actor; now: Date }

/** Runs `work` in a tenant transaction as the session's member; a member no longer active is refused. */
export async function asMember<T>(
  db: Database,
  session: { tenantId: string; userId: string },
  now: Date,
  work: (ctx: DomainContext) => Promise<T>,
): Promise<T> {
  return withTenant(db, session.tenantId, async (tx) => {
    const [membership] = await tx
      .select({ roleKey: memberships.roleKey, status: memberships.status })
      .from(memberships)
      .where(and(eq(memberships.tenantId, session.tenantId), eq(memberships.userId, session.userId)))
      .limit(1)
    if (!membership || membership.status !== 'active') {
      throw new Problem({
        status: 403,
        title: 'Forbidden',
        detail: 'Your membership of this organisation is not active.',
        code: 'KR-TENANT-MEMBERSHIP-INACTIVE',
      })
    }
    return work({ tx, actor: { tenantId: session.tenantId, userId: session.userId, roleKey: membership.roleKey as RoleKey }, now })
  })
}

/** Where a call came from, as the audit log records it. */
export type RequestMeta = { ip: string; correlationId: string }

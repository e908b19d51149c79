import { and, eq } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { memberships, tenants, users } from '#server/db/schema'
import { withTenant, withUser } from '#server/db/tenancy'
import { recordAuditIn } from '#server/domain/audit'
import type { OrganisationMeta } from '#server/domain/licensing/organisations'
import { Problem, problems } from '#server/http/problem'
import { isUuid } from '~/lib/schemas/uuid'
import { switchSessionTenant, type AuthSession } from './sessions'

/**
 * POST /api/tenants/{tenantId}/switch: the session moves into another organisation of its person
 * (an active membership), as accepting an invite does. An organisation that enforces a second
 * factor takes a fresh sign-in unless this session is an administrator's (which passed one).
 */
export async function switchOrganisation(db: Database, session: AuthSession, tenantId: string, meta: OrganisationMeta, now: Date): Promise<void> {
  const notFound = () => new Problem(problems.notFound('You are not a member of this organisation.'))
  if (!isUuid(tenantId)) throw notFound()
  if (tenantId === session.tenantId) return
  const [membership] = await withUser(db, session.userId, (tx) =>
    tx
      .select({ status: memberships.status })
      .from(memberships)
      .where(and(eq(memberships.userId, session.userId), eq(memberships.tenantId, tenantId)))
      .limit(1),
  )
  if (!membership) throw notFound()
  if (membership.status !== 'active') {
    throw new Problem({ ...problems.forbidden('Your membership of this organisation is not active. Ask one of its administrators to reactivate it.', 'KR_MEMBERSHIP_SUSPENDED') })
  }
  const [tenant] = await db.select({ slug: tenants.slug, mfaEnforced: tenants.mfaEnforced }).from(tenants).where(eq(tenants.id, tenantId)).limit(1)
  const [user] = await db.select({ mfaEnforced: users.mfaEnforced }).from(users).where(eq(users.id, session.userId)).limit(1)
  if (tenant?.mfaEnforced && session.kind !== 'admin' && !user?.mfaEnforced) {
    throw new Problem({
      status: 403,
      title: 'Forbidden',
      detail: 'This organisation asks for a second factor at sign-in. Sign in to it to switch.',
      code: 'KR_MFA_REQUIRED_TO_SWITCH',
      remediation: `Sign out, then sign in at /auth/login?tenantSlug=${tenant.slug}.`,
    })
  }
  await switchSessionTenant(db, session, tenantId)
  await withTenant(db, tenantId, (tx) =>
    recordAuditIn(tx, { tenantId, actorUserId: session.userId, action: 'licensing.organisation.switched', targetType: 'Organisation', targetId: tenantId, ip: meta.ip, correlationId: meta.correlationId, at: now }),
  )
}

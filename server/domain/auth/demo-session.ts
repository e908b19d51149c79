import { and, eq, sql } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { memberships, tenants, users } from '#server/db/schema'
import { DEMO } from '#server/db/demo-accounts'
import { withUser } from '#server/db/tenancy'
import { Problem } from '#server/http/problem'
import { DEMO_SESSION_MS } from '~/lib/constants'
import { recordAudit } from '../audit'
import { createSession, type AuthSession } from './sessions'

/**
 * Spec §4: an optional automatic demo admin session, valid one hour. It exists only when the web
 * build's adminAutoSession flag asks for it AND the server allows it (DEMO_AUTO_SESSION), and only
 * for the seeded demo administrator: it is for demonstrations, never for real tenants.
 */
export async function createDemoSession(
  db: Database,
  ctx: { ip: string; userAgent: string | undefined; correlationId: string },
  now: Date,
): Promise<{ token: string; session: AuthSession }> {
  const [admin] = await db.select({ id: users.id, status: users.status }).from(users).where(sql`lower(${users.email}) = ${DEMO.admin.email}`)
  const [tenant] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.slug, DEMO.tenant.slug))
  if (!admin || !tenant || admin.status !== 'active') throw new Problem({ status: 404, title: 'Not found', detail: 'The demo account does not exist.', code: 'KR_NOT_FOUND' })
  const [membership] = await withUser(db, admin.id, (tx) =>
    tx
      .select({ roleKey: memberships.roleKey })
      .from(memberships)
      .where(and(eq(memberships.userId, admin.id), eq(memberships.tenantId, tenant.id), eq(memberships.status, 'active'))),
  )
  if (membership?.roleKey !== 'admin') throw new Problem({ status: 404, title: 'Not found', detail: 'The demo account is not an administrator.', code: 'KR_NOT_FOUND' })
  const created = await createSession(
    db,
    { userId: admin.id, tenantId: tenant.id, kind: 'admin', requiresMfa: false, mfaEnrollment: false, ip: ctx.ip, userAgent: ctx.userAgent, maxLifetimeMs: DEMO_SESSION_MS },
    now,
  )
  await recordAudit(db, { tenantId: tenant.id, actorUserId: admin.id, action: 'auth.signin', ip: ctx.ip, correlationId: ctx.correlationId, data: { kind: 'admin', demo: true } })
  return created
}

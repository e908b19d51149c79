import { and, eq, sql } from 'drizzle-orm'
import type { Database, Tx } from '#server/db/client'
import { memberships, tenants, users } from '#server/db/schema'
import { adminConfig, notifications } from '#server/db/schema-settings'
import { reusableSelect, type ValueOf } from '#server/db/reusable-select'
import { withTenant } from '#server/db/tenancy'
import { Problem } from '#server/http/problem'
import type { RoleKey } from '#server/domain/tenancy/roles'
import { readScope, unreadCountKey, type Membership, type Opened } from '#server/domain/tenancy/request-scope'

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
    if (membership?.status !== 'active') {
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
  if (shared) return shared.run(db, session.tenantId, session.userId, openMember, (tx, opened) => asActive(tx, opened.membership))
  return withTenant(db, session.tenantId, async (tx) => asActive(tx, await membershipOf(tx, session.tenantId, session.userId)))
}

/**
 * A read of the tenant that needs no active membership (the session's own view, the telemetry
 * switches): it joins the page's shared read transaction when there is one, and is told what that
 * transaction read as it began (membership, the member's facts); otherwise it runs in a tenant
 * transaction of its own, told nothing.
 */
export async function asTenantReader<T>(
  db: Database,
  session: { tenantId: string; userId: string },
  work: (tx: Tx, opened: Opened | undefined) => Promise<T>,
): Promise<T> {
  const shared = readScope.getStore()
  if (shared) return shared.run(db, session.tenantId, session.userId, openMember, work)
  return withTenant(db, session.tenantId, async (tx) => work(tx, undefined))
}

async function membershipOf(tx: Tx, tenantId: string, userId: string): Promise<Membership | undefined> {
  const [membership] = await selectMembership(tx, { tenantId, userId })
  return membership
}

/** Every call of the API reads it: drizzle builds it once (server/db/reusable-select.ts). */
const selectMembership = reusableSelect((tx, value: ValueOf<{ tenantId: string; userId: string }>) =>
  tx
    .select({ roleKey: memberships.roleKey, status: memberships.status })
    .from(memberships)
    .where(and(eq(memberships.tenantId, value('tenantId')), eq(memberships.userId, value('userId'))))
    .limit(1),
)

/**
 * Begins a shared read transaction with one statement (issue 37): the member's membership, and what
 * every signed-in page shows of them and their organisation (the session view's names and flags,
 * the telemetry switches' settings, the bell's unread count), read once for all the page's reads. As app_user with the
 * tenant set, like every read of the transaction: the membership and the configuration row are
 * the tenant's under row-level security; users and tenants are read by id.
 */
function openMember(db: Database, tenantId: string, userId: string, inside: (tx: Tx, opened: Opened) => Promise<void>): Promise<void> {
  return withTenant(db, tenantId, async (tx) => {
    const [row] = await selectMember(tx, { tenantId, userId })
    if (!row) return inside(tx, { membership: undefined, member: undefined })
    const membership = row.roleKey !== null && row.status !== null ? { roleKey: row.roleKey, status: row.status } : undefined
    const telemetryConfig = row.telemetryValues !== null && row.telemetryVersion !== null ? { values: row.telemetryValues, version: row.telemetryVersion } : undefined
    const { displayName, email, tenantName, tenantSlug, featureFlags, orgSettings } = row
    return inside(tx, {
      membership,
      member: { displayName, email, tenantName, tenantSlug, featureFlags, orgSettings, telemetryConfig },
      known: [[unreadCountKey(tenantId, userId), Number(row.unread)]],
    })
  })
}

/** Every signed-in page begins with it: drizzle builds it once (server/db/reusable-select.ts). */
const selectMember = reusableSelect((tx, value: ValueOf<{ tenantId: string; userId: string }>) =>
  tx
    .select({
      roleKey: memberships.roleKey,
      status: memberships.status,
      displayName: users.displayName,
      email: users.email,
      tenantName: tenants.name,
      tenantSlug: tenants.slug,
      featureFlags: tenants.featureFlags,
      orgSettings: tenants.orgSettings,
      telemetryValues: adminConfig.values,
      telemetryVersion: adminConfig.version,
      unread: sql<number>`(select count(*)::int from ${notifications} where ${notifications.tenantId} = ${tenants.id} and ${notifications.userId} = ${users.id} and ${notifications.readAt} is null)`,
    })
    .from(tenants)
    .innerJoin(users, eq(users.id, value('userId')))
    .leftJoin(memberships, and(eq(memberships.tenantId, tenants.id), eq(memberships.userId, users.id)))
    .leftJoin(adminConfig, and(eq(adminConfig.tenantId, tenants.id), eq(adminConfig.category, 'telemetry')))
    .where(eq(tenants.id, value('tenantId')))
    .limit(1),
)

/** Where a call came from, as the audit log records it. */
export type RequestMeta = { ip: string; correlationId: string }

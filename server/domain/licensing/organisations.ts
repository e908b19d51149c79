import { randomBytes } from 'node:crypto'
import { asc, eq, inArray } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { memberships, tenants } from '#server/db/schema'
import { withTenant, withUser } from '#server/db/tenancy'
import { recordAuditIn } from '#server/domain/audit'
import { recordChange } from '#server/domain/tenancy/change-log'
import { Problem } from '#server/http/problem'
import { roleKeyLabel } from '~/lib/auth/role'
import type { CreatedOrganisation, MyOrganisation } from '~/lib/licensing/seats'
import { applyLicence, DEFAULT_LICENCE } from './licence'

/**
 * Organisations (issue 16, docs/licensing.md "Organisations"). Self-registration (decision 003) and
 * POST /api/tenants make one the same way: the organisation, its first administrator (the person
 * making it) and its default licence, the free plan.
 */

export type OrganisationMeta = { ip: string; correlationId: string }

/** A slug from the name, with a random tail so two organisations of one name never collide. */
export function slugFor(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
  return `${base || 'organisation'}-${randomBytes(3).toString('hex')}`
}

function slugTaken(slug: string): Problem {
  return new Problem({
    status: 409,
    title: 'Conflict',
    detail: `The address “${slug}” is taken by another organisation.`,
    code: 'KR_SLUG_TAKEN',
    remediation: 'Choose another, or leave it empty to have one made from the name.',
    errors: { slug: [`“${slug}” is taken. Choose another, or leave it empty.`] },
  })
}

/**
 * Inserts the organisation (the owner connection: no tenant exists yet to scope it), then in its
 * own transaction the administrator's membership and the default licence. A chosen slug that is
 * taken answers 409 with a field error; a derived one cannot collide.
 */
export async function createOrganisation(
  db: Database,
  input: { name: string; slug?: string | undefined; adminUserId: string; isDefault: boolean },
  meta: OrganisationMeta,
  now: Date,
): Promise<CreatedOrganisation> {
  const name = input.name.trim()
  const slug = input.slug ?? slugFor(name)
  const [tenant] = await db.insert(tenants).values({ name, slug, createdAt: now, updatedAt: now }).onConflictDoNothing({ target: tenants.slug }).returning({ id: tenants.id })
  if (!tenant) throw slugTaken(slug)
  await withTenant(db, tenant.id, async (tx) => {
    const [membership] = await tx
      .insert(memberships)
      .values({ tenantId: tenant.id, userId: input.adminUserId, roleKey: 'admin', status: 'active', isDefault: input.isDefault, createdAt: now, updatedAt: now })
      .returning({ id: memberships.id })
    await applyLicence(tx, tenant.id, { ...DEFAULT_LICENCE }, now)
    await recordAuditIn(tx, {
      tenantId: tenant.id,
      actorUserId: input.adminUserId,
      action: 'licensing.organisation.created',
      targetType: 'Organisation',
      targetId: tenant.id,
      ip: meta.ip,
      correlationId: meta.correlationId,
      data: { name, slug },
      at: now,
    })
    const ctx = { tx, actor: { tenantId: tenant.id, userId: input.adminUserId, roleKey: 'admin' as const }, now }
    await recordChange(ctx, 'Organisation', tenant.id, 'Created')
    if (membership) await recordChange(ctx, 'Membership', membership.id, 'Created')
  })
  return { id: tenant.id, name, slug, roleKey: 'admin', createdAtUtc: now.toISOString() }
}

/** Whether the person belongs to any organisation yet: their first becomes their default. */
export async function hasMembership(db: Database, userId: string): Promise<boolean> {
  const rows = await withUser(db, userId, (tx) => tx.select({ id: memberships.id }).from(memberships).where(eq(memberships.userId, userId)).limit(1))
  return rows.length > 0
}

/** GET /api/tenants: the caller's organisations (their own memberships), by name. */
export async function listMyOrganisations(db: Database, session: { userId: string; tenantId: string }): Promise<MyOrganisation[]> {
  const rows = await withUser(db, session.userId, (tx) =>
    tx
      .select({ tenantId: memberships.tenantId, roleKey: memberships.roleKey, status: memberships.status, isDefault: memberships.isDefault })
      .from(memberships)
      .where(eq(memberships.userId, session.userId)),
  )
  if (rows.length === 0) return []
  const names = await db
    .select({ id: tenants.id, name: tenants.name, slug: tenants.slug })
    .from(tenants)
    .where(inArray(tenants.id, rows.map((r) => r.tenantId)))
    .orderBy(asc(tenants.name), asc(tenants.id))
  return names.flatMap((tenant) => {
    const row = rows.find((r) => r.tenantId === tenant.id)
    if (!row) return []
    const status = row.status === 'active' || row.status === 'invited' ? row.status : 'suspended'
    return [{ id: tenant.id, name: tenant.name, slug: tenant.slug, roleKey: row.roleKey, roleName: roleKeyLabel(row.roleKey), status, isCurrent: tenant.id === session.tenantId, isDefault: row.isDefault }]
  })
}


import { eq } from 'drizzle-orm'
import { hashPassword } from '#server/domain/auth/passwords'
import type { Database } from './client'
import { mfaSecrets, memberships, tenants, users } from './schema'
import type { BlobStore } from '#server/storage/blob-store'
import { seedDocControl } from './seed-doc-control'
import { seedDocuments } from './seed-documents'
import { seedReporting } from './seed-reporting'
import { withTenant } from './tenancy'
import { DEMO } from './demo-accounts'

/** `store`: where the demo documents' files go; without one, the demo has no documents. */
export async function seedIfEmpty(db: Database, options: { store?: BlobStore } = {}): Promise<boolean> {
  const existing = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.slug, DEMO.tenant.slug)).limit(1)
  if (existing.length > 0) return false

  const [demo] = await db.insert(tenants).values(DEMO.tenant).returning({ id: tenants.id })
  const [other] = await db.insert(tenants).values(DEMO.otherTenant).returning({ id: tenants.id })
  if (!demo || !other) throw new Error('seed: tenants not created')

  const now = new Date()
  const [admin, user, otherUser] = await db
    .insert(users)
    .values([
      { email: DEMO.admin.email, displayName: DEMO.admin.displayName, firstName: 'Alex', lastName: 'Admin', position: 'Project Director', passwordHash: await hashPassword(DEMO.admin.password), emailVerifiedAt: now, mfaEnforced: true },
      { email: DEMO.user.email, displayName: DEMO.user.displayName, firstName: 'Sam', lastName: 'Site', position: 'Site Engineer', passwordHash: await hashPassword(DEMO.user.password), emailVerifiedAt: now },
      { email: DEMO.otherUser.email, displayName: DEMO.otherUser.displayName, firstName: 'Nico', lastName: 'North', position: 'Site Manager', passwordHash: await hashPassword(DEMO.otherUser.password), emailVerifiedAt: now },
    ])
    .returning({ id: users.id })
  if (!admin || !user || !otherUser) throw new Error('seed: users not created')

  await db.insert(mfaSecrets).values({ userId: admin.id, secret: DEMO.adminTotpSecret, confirmedAt: now })
  await withTenant(db, demo.id, (tx) =>
    tx.insert(memberships).values([
      { tenantId: demo.id, userId: admin.id, roleKey: 'admin', isDefault: true },
      { tenantId: demo.id, userId: user.id, roleKey: 'read-write', isDefault: true },
    ]),
  )
  await withTenant(db, other.id, (tx) =>
    tx.insert(memberships).values({ tenantId: other.id, userId: otherUser.id, roleKey: 'read-write', isDefault: true }),
  )
  await seedReporting(db, { demoTenantId: demo.id, otherTenantId: other.id, adminId: admin.id, userId: user.id, otherUserId: otherUser.id }, now)
  if (options.store) await seedDocuments(db, { tenantId: demo.id, adminId: admin.id }, options.store, now)
  await seedDocControl(db, { tenantId: demo.id, adminId: admin.id, userId: user.id }, now)
  return true
}

import { sql } from 'drizzle-orm'
import type { Database, Tx } from './client'
import { transactionAnnouncingChanges } from './committed-changes'
import { tenantTables } from './schema'
import { adminTenantTables } from './schema-admin'
import { docControlTenantTables } from './schema-doc-control'
import { documentTenantTables } from './schema-documents'
import { observabilityTenantTables } from './schema-observability'
import { photoTenantTables } from './schema-photos'
import { realtimeTenantTables } from './schema-realtime'
import { reportingTenantTables } from './schema-reporting'
import { settingsTenantTables } from './schema-settings'
import { licensingTenantTables } from './schema-licensing'
import { billingTenantTables } from './schema-billing'
import { storeTenantTables } from './schema-store'
import { oidcTenantTables } from './schema-oidc'

/**
 * Every tenant-owned query runs inside one of these transactions: as the plain application role,
 * with app.tenant_id set for this transaction only (never session-wide: PGlite is one shared
 * connection). Row-level security then refuses any row of another tenant.
 */
export async function withTenant<T>(db: Database, tenantId: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return transactionAnnouncingChanges(db, async (tx) => {
    // One statement for both (set_config('role', …, true) is SET LOCAL ROLE): every request pays it.
    await tx.execute(sql`select set_config('role', 'app_user', true), set_config('app.tenant_id', ${tenantId}, true)`)
    return work(tx)
  })
}

/**
 * For work that has a user but no tenant yet (signing in lists the user's own memberships) or
 * no tenant at all (security events): the application role, with app.user_id set and no tenant.
 */
export async function withUser<T>(db: Database, userId: string | undefined, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('role', 'app_user', true), set_config('app.user_id', ${userId ?? ''}, true)`)
    return work(tx)
  })
}

export class RlsBypassError extends Error {}

/** Refuse to run if the role used for tenant work can bypass row-level security. */
export async function assertRowLevelSecurity(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local role app_user`)
    const roles = rowsOf<{ rolsuper: boolean; rolbypassrls: boolean }>(
      await tx.execute(sql`select rolsuper, rolbypassrls from pg_roles where rolname = current_user`),
    )
    const role = roles[0]
    if (!role || role.rolsuper || role.rolbypassrls) {
      throw new RlsBypassError('The application role can bypass row-level security; refusing to start.')
    }
    const tables = rowsOf<{ relname: string; relrowsecurity: boolean; relforcerowsecurity: boolean }>(
      await tx.execute(
        sql`select c.relname, c.relrowsecurity, c.relforcerowsecurity
            from pg_class c where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r'`,
      ),
    )
    for (const name of [...tenantTables, ...reportingTenantTables, ...photoTenantTables, ...realtimeTenantTables, ...documentTenantTables, ...docControlTenantTables, ...adminTenantTables, ...settingsTenantTables, ...observabilityTenantTables, ...licensingTenantTables, ...billingTenantTables, ...storeTenantTables, ...oidcTenantTables]) {
      const table = tables.find((t) => t.relname === name)
      if (!table?.relrowsecurity || !table.relforcerowsecurity) {
        throw new RlsBypassError(`Table ${name} does not force row-level security; refusing to start.`)
      }
    }
  })
}

/** Rows of a raw `execute`: both drivers answer `{ rows }`. */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows
}

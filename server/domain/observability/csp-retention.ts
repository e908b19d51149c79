import { and, asc, inArray, isNull, lt, eq, sql } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { tenants } from '#server/db/schema'
import { cspReports } from '#server/db/schema-observability'
import { rowsOf } from '#server/db/tenancy'
import { CSP_RETENTION_DAYS } from './csp'
import { inScope } from './ingest'

const DAY_MS = 24 * 60 * 60_000
const BATCH = 5000

/**
 * Deletes CSP reports older than CSP_RETENTION_DAYS (by when they arrived), for every organisation
 * and the untenanted ones, each scope under its row-level security and an advisory lock (several
 * instances may run the pass). Returns how many went.
 */
export async function purgeCspReports(db: Database, now: Date): Promise<number> {
  const before = new Date(now.getTime() - CSP_RETENTION_DAYS * DAY_MS)
  const scopes: Array<string | null> = [...(await db.select({ id: tenants.id }).from(tenants).orderBy(asc(tenants.id))).map((t) => t.id), null]
  let total = 0
  for (const tenantId of scopes) {
    for (;;) {
      const deleted = await inScope(db, tenantId, async (tx) => {
        const [lock] = rowsOf<{ ok: boolean }>(await tx.execute(sql`select pg_try_advisory_xact_lock(hashtextextended(${`csp-retention:${tenantId ?? 'untenanted'}`}, 0)) as ok`))
        if (lock?.ok !== true) return 0
        const t = cspReports
        const doomed = tx
          .select({ id: t.id })
          .from(t)
          .where(and(tenantId ? eq(t.tenantId, tenantId) : isNull(t.tenantId), lt(t.receivedAt, before)))
          .limit(BATCH)
        return (await tx.delete(t).where(inArray(t.id, doomed)).returning({ id: t.id })).length
      })
      total += deleted
      if (deleted < BATCH) break
    }
  }
  return total
}

import { sql } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { mailTransportHealth } from '#server/db/schema-settings'

/**
 * Failure tracking per transport (spec §3 "Failure tracking", docs/admin/mail.md): how often
 * sending through it failed, how many times in a row, when it last failed and last worked, and
 * the last error. One row per key (`instance`, `file`, `tenant:{id}`), upserted by the worker.
 */

function tenantOf(key: string): string | null {
  return key.startsWith('tenant:') ? key.slice('tenant:'.length) : null
}

export async function recordTransportSuccess(db: Database, key: string, at: Date): Promise<void> {
  await db
    .insert(mailTransportHealth)
    .values({ key, tenantId: tenantOf(key), lastSuccessAt: at, updatedAt: at })
    .onConflictDoUpdate({ target: mailTransportHealth.key, set: { consecutiveFailures: 0, lastSuccessAt: at, updatedAt: at } })
}

export async function recordTransportFailure(db: Database, key: string, at: Date, error: string): Promise<void> {
  await db
    .insert(mailTransportHealth)
    .values({ key, tenantId: tenantOf(key), failureCount: 1, consecutiveFailures: 1, lastFailureAt: at, lastError: error, updatedAt: at })
    .onConflictDoUpdate({
      target: mailTransportHealth.key,
      set: {
        failureCount: sql`${mailTransportHealth.failureCount} + 1`,
        consecutiveFailures: sql`${mailTransportHealth.consecutiveFailures} + 1`,
        lastFailureAt: at,
        lastError: error,
        updatedAt: at,
      },
    })
}

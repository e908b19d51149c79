import { pgTable, text, timestamp } from 'drizzle-orm/pg-core'

/**
 * Leases of background jobs (server/jobs/lease.ts): one row per job, naming the instance that may
 * run its pass until `expires_at` (database time). Instance-wide, like rate_limits: no tenant owns a
 * job, so no row-level security and not in any …TenantTables list; only the server's own role
 * touches it, never inside a tenant transaction.
 */
export const jobLeases = pgTable('job_leases', {
  /** The job's name (startPeriodic's `name`). */
  name: text('name').primaryKey(),
  /** The holding process: host, pid and a random part (server/jobs/lease.ts `processHolder`). */
  holder: text('holder').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
})

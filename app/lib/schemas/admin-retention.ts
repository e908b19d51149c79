import type { SeatStanding } from '~/lib/licensing/seats'
import { z } from 'zod'
import { expectedRevision } from './edit-conflict'

/**
 * The retention policy (docs/admin/shell-and-retention.md "Retention"): closed items are archived
 * `archiveAfterDays` after they closed and purged (deleted) `purgeAfterDays` after they closed;
 * archived reports with no live item left are purged `purgeAfterDays` after they were archived.
 * The API and the /admin/retention form check the same rules.
 */
export const ARCHIVE_AFTER_DAYS_MAX = 3650
export const PURGE_AFTER_DAYS_MAX = 36500

const archiveMessage = `Archive after a whole number of days from 1 to ${ARCHIVE_AFTER_DAYS_MAX}.`
const purgeMessage = `Purge after a whole number of days up to ${PURGE_AFTER_DAYS_MAX}.`

const days = (message: string, max: number, min = 1) => z.number({ error: message }).int(message).min(min, message).max(max, message)

const fields = {
  archiveAfterDays: days(archiveMessage, ARCHIVE_AFTER_DAYS_MAX),
  purgeAfterDays: days(purgeMessage, PURGE_AFTER_DAYS_MAX, 2),
}

/** Purging comes after archiving: the error sits on purgeAfterDays. */
function purgeAfterArchive<T extends { archiveAfterDays: number; purgeAfterDays: number }>(value: T, ctx: z.RefinementCtx) {
  if (value.purgeAfterDays <= value.archiveAfterDays) {
    ctx.addIssue({ code: 'custom', path: ['purgeAfterDays'], message: 'Purge after more days than archive: an item is archived first, then purged.' })
  }
}

/** PUT /api/admin/retention. */
export const RetentionPolicySchema = z
  .object({ enabled: z.boolean({ error: 'enabled is true or false.' }), ...fields, expectedRevision })
  .strict()
  .superRefine(purgeAfterArchive)

export type RetentionPolicyInput = z.infer<typeof RetentionPolicySchema>

/** The /admin/retention form: an unticked checkbox sends nothing, which reads as off. */
export const RetentionFormSchema = z.object({ enabled: z.boolean().optional(), ...fields }).superRefine(purgeAfterArchive)

/** GET /api/admin/retention. */
export type RetentionPolicy = {
  enabled: boolean
  archiveAfterDays: number
  purgeAfterDays: number
  /** When the daily job last worked through the organisation; null before its first run. */
  lastRunAtUtc: string | null
  /** Null while the organisation has never saved a policy (the defaults are shown). */
  updatedAtUtc: string | null
  /** 0 while never saved, bumped by every save (expectedRevision). */
  revision: number
}

/** GET /api/admin/retention/health (spec §3 "Retention health"), exactly. */
export type RetentionHealth = {
  activeCount: number
  archivedCount: number
  purgedCount: number
  dueCount: number
  nextDueAtUtc: string | null
}

/** GET /api/admin/overview: the control panel's figures. */
export type AdminOverview = {
  activeUsers: number
  /** The seats as licensing answers them (server/domain/licensing/seats.ts seatStanding). */
  seats: SeatStanding
  pendingInvites: number
  pendingJoinRequests: number
  failingMail: number
  storageUsedBytes: number
  storageQuotaBytes: number
  retention: RetentionHealth & { enabled: boolean }
  /**
   * The demo accounts (published passwords) found in this database while the server is reached at
   * an address other than this machine's: the control panel warns until they are removed (issue 36).
   */
  demoAccounts: string[]
}

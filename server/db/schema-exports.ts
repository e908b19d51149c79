import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { tenantPolicy, tenantRef, users } from './schema'

/**
 * Large exports run as jobs (docs/exports.md "Large exports as a job"): a row per export asked for,
 * claimed by the export job on any instance as transmittal packages are (a lease: status running
 * and a heartbeat), owned by the member who asked, who alone may see it and download its file.
 */
export const exportJobs = pgTable(
  'export_jobs',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    /** Who asked: the job reads as this member, and only this member sees the job and its file. */
    ownerUserId: uuid('owner_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** report-pdf | punch-list-pdf */
    kind: text('kind').notNull(),
    /** What to export, as the call that started it said (server/domain/exports/export-jobs.ts ExportJobQuery). */
    query: jsonb('query').$type<Record<string, unknown>>().notNull(),
    /** queued | running | ready | failed */
    status: text('status').notNull().default('queued'),
    itemsTotal: integer('items_total').notNull().default(0),
    itemsDone: integer('items_done').notNull().default(0),
    blobKey: text('blob_key'),
    sizeBytes: bigint('size_bytes', { mode: 'number' }),
    error: text('error'),
    attempts: integer('attempts').notNull().default(0),
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }),
    /** Mail the owner when it is ready (or failed). */
    notify: boolean('notify').notNull().default(false),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /** The download link works until then (410 after); the file is deleted by the next pass. */
    expiresAt: timestamp('expires_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index('export_jobs_owner_idx').on(t.tenantId, t.ownerUserId, t.startedAt),
    index('export_jobs_status_idx').on(t.status),
    tenantPolicy('export_jobs'),
  ],
).enableRLS()

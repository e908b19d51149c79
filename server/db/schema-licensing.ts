import { bigint, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { tenantPolicy, tenantRef, timestamps, users } from './schema'

/**
 * Licences and seats (issue 16, spec §3 "license per tenant, seats", §6 "A tenant has license
 * seats, seat invites and admin invites"). One licence per organisation: plan, seat count, valid
 * until and status, changed only by billing events (web checkout, a linked store subscription) or
 * a platform operator (server/domain/licensing/licence.ts). An organisation without a row has the
 * default licence (the free plan). Seats are not rows: every active member holds one and every
 * pending invite reserves one.
 */
export const licences = pgTable(
  'licences',
  {
    tenantId: tenantRef().primaryKey(),
    /** A key of PLANS (app/lib/licensing/plans.ts). */
    plan: text('plan').notNull(),
    seats: integer('seats').notNull(),
    validUntil: timestamp('valid_until', { withTimezone: true }),
    /** active | trialing | past_due | cancelled | expired */
    status: text('status').notNull(),
    /** What set it last: default | checkout | store | operator */
    source: text('source').notNull(),
    /** The provider's subscription or the store's transaction it came from, if any. */
    reference: text('reference'),
    /** Bumped by every change (an operator's, checkout's or a store's); a save against an older one is refused (issue 36 §4, expectedRevision). */
    revision: bigint('revision', { mode: 'number' }).notNull().default(0),
    /** Who saved last (null for billing and stores): named in a refused stale save. */
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  () => [tenantPolicy('licences')],
).enableRLS()

export const licensingTenantTables = ['licences']

import { sql } from 'drizzle-orm'
import { date, index, integer, jsonb, pgPolicy, pgTable, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core'
import { appUser, currentTenant, tenantPolicy, tenants } from './schema'

/**
 * Observability (issue 15): what browsers send to /telemetry/* (spec §7 "Telemetry"), and the
 * counts of what was accepted and dropped. A row carries the tenant and user of the session that
 * sent it, or none (signed out, or the public fall-back): those rows are stored all the same.
 */

/**
 * Rows without a tenant exist only outside every tenant: readable and writable by transactions
 * that set no app.tenant_id (the retention job, the untenanted side of the stats), never by a
 * tenant transaction. The audit log writes such rows blind; ingest needs to count and purge them.
 */
function untenantedPolicy(name: string) {
  const untenanted = sql`tenant_id is null and ${currentTenant} is null`
  return pgPolicy(`${name}_untenanted`, { as: 'permissive', for: 'all', to: appUser, using: untenanted, withCheck: untenanted })
}

const tenantOrNone = () => uuid('tenant_id').references(() => tenants.id, { onDelete: 'cascade' })

/** Spec §3 "Telemetry event". Kept 30 days after it arrived (server/jobs/telemetry-retention.ts). */
export const telemetryEvents = pgTable(
  'telemetry_events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantOrNone(),
    /** Like the audit log's actor: no foreign key, so the history outlives the account. */
    userId: uuid('user_id'),
    /** The kr-vis cookie, else the event's correlation id. */
    visitorId: text('visitor_id'),
    name: text('name').notNull(),
    properties: jsonb('properties').$type<Record<string, unknown>>().notNull().default({}),
    source: text('source').notNull(),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    correlationId: text('correlation_id'),
  },
  (t) => [
    index('telemetry_events_tenant_received_idx').on(t.tenantId, t.receivedAt),
    index('telemetry_events_tenant_name_idx').on(t.tenantId, t.name, t.occurredAt),
    tenantPolicy('telemetry_events'),
    untenantedPolicy('telemetry_events'),
  ],
).enableRLS()

/** Spec §3 "Frontend error event". Kept 90 days after it arrived. */
export const frontendErrors = pgTable(
  'frontend_errors',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantOrNone(),
    userId: uuid('user_id'),
    /** The event's correlation id (the kr-vis visitor id), else the cookie. */
    visitorId: text('visitor_id'),
    name: text('name').notNull(),
    message: text('message').notNull(),
    stack: text('stack'),
    path: text('path'),
    userAgent: text('user_agent'),
    release: text('release'),
    /** SHA-256 (hex) of the message and the top three stack frames without positions or queries: one error, however often. */
    fingerprint: text('fingerprint').notNull(),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('frontend_errors_tenant_received_idx').on(t.tenantId, t.receivedAt),
    index('frontend_errors_tenant_fingerprint_idx').on(t.tenantId, t.fingerprint, t.occurredAt),
    tenantPolicy('frontend_errors'),
    untenantedPolicy('frontend_errors'),
  ],
).enableRLS()

/**
 * Ingest counts per UTC day, kind (events | errors) and outcome: accepted, or dropped as invalid,
 * rate-limited or too-large (spec §7 "Telemetry ingest stats"). Kept 90 days.
 */
export const telemetryIngestCounts = pgTable(
  'telemetry_ingest_counts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantOrNone(),
    day: date('day', { mode: 'string' }).notNull(),
    /** events | errors */
    kind: text('kind').notNull(),
    /** accepted | invalid | rate-limited | too-large */
    outcome: text('outcome').notNull(),
    count: integer('count').notNull().default(0),
  },
  (t) => [
    // One counter per tenant (or none: NULL counts as one value here), day, kind and outcome.
    unique('telemetry_ingest_counts_key').on(t.tenantId, t.day, t.kind, t.outcome).nullsNotDistinct(),
    tenantPolicy('telemetry_ingest_counts'),
    untenantedPolicy('telemetry_ingest_counts'),
  ],
).enableRLS()

export const observabilityTenantTables = ['telemetry_events', 'frontend_errors', 'telemetry_ingest_counts'] as const

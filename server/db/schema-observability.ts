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

export const observabilityTenantTables = ['telemetry_events', 'frontend_errors', 'telemetry_ingest_counts', 'diagnostic_runs', 'diagnostic_attempts', 'diagnostic_checks', 'schema_incidents', 'csp_reports'] as const

/**
 * Diagnostics (spec §7 "Observability and admin data"): a run is one pass over the checks
 * (database, mail, storage, redis, hub, disk, clock) — started by an administrator (the
 * organisation's row) or by the schedule (no organisation: the instance's own health, shown to
 * every administrator). Each check of a run is one or more attempts (a failed check is retried).
 */
export const diagnosticRuns = pgTable(
  'diagnostic_runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantOrNone(),
    /** schedule | manual */
    trigger: text('trigger').notNull(),
    requestedBy: uuid('requested_by'),
    /** running | passed | failed */
    outcome: text('outcome').notNull().default('running'),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    correlationId: text('correlation_id'),
    /** Which server process ran it (several instances may share one database). */
    instanceId: text('instance_id'),
  },
  (t) => [index('diagnostic_runs_tenant_started_idx').on(t.tenantId, t.startedAt), tenantPolicy('diagnostic_runs'), untenantedPolicy('diagnostic_runs')],
).enableRLS()

/** One try of one check within a run (`/api/admin/diagnostics-attempts`). */
export const diagnosticAttempts = pgTable(
  'diagnostic_attempts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantOrNone(),
    runId: uuid('run_id')
      .notNull()
      .references(() => diagnosticRuns.id, { onDelete: 'cascade' }),
    /** database | mail | storage | redis | hub | disk | clock */
    check: text('check').notNull(),
    attempt: integer('attempt').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    durationMs: integer('duration_ms').notNull(),
    /** passed | failed | skipped */
    outcome: text('outcome').notNull(),
    message: text('message').notNull(),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [
    index('diagnostic_attempts_tenant_check_idx').on(t.tenantId, t.check, t.startedAt),
    index('diagnostic_attempts_run_idx').on(t.runId),
    tenantPolicy('diagnostic_attempts'),
    untenantedPolicy('diagnostic_attempts'),
  ],
).enableRLS()

/** Spec §3 "Failure tracking" per check, for the organisation's runs or the instance's (no organisation). */
export const diagnosticChecks = pgTable(
  'diagnostic_checks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantOrNone(),
    check: text('check').notNull(),
    failureCount: integer('failure_count').notNull().default(0),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    lastFailureUtc: timestamp('last_failure_utc', { withTimezone: true }),
    lastSuccessUtc: timestamp('last_success_utc', { withTimezone: true }),
    lastError: text('last_error'),
  },
  (t) => [
    unique('diagnostic_checks_key').on(t.tenantId, t.check).nullsNotDistinct(),
    tenantPolicy('diagnostic_checks'),
    untenantedPolicy('diagnostic_checks'),
  ],
).enableRLS()

/**
 * Schema incidents: a response that did not match the contract's schema for its call (a sample in
 * production, every one in tests), recorded instead of surfacing as a broken screen.
 */
export const schemaIncidents = pgTable(
  'schema_incidents',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantOrNone(),
    /** server (checked before sending) | web (checked by the browser's API client) */
    source: text('source').notNull(),
    method: text('method').notNull(),
    /** The call's path template, e.g. /api/items/{itemId}. */
    path: text('path').notNull(),
    status: integer('status').notNull(),
    /** Where in the body, e.g. items.3.dueDate ("" for the body itself). */
    field: text('field').notNull(),
    expected: text('expected').notNull(),
    got: text('got').notNull(),
    correlationId: text('correlation_id'),
    release: text('release'),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('schema_incidents_tenant_occurred_idx').on(t.tenantId, t.occurredAt),
    index('schema_incidents_tenant_call_idx').on(t.tenantId, t.method, t.path, t.field),
    tenantPolicy('schema_incidents'),
    untenantedPolicy('schema_incidents'),
  ],
).enableRLS()

/**
 * Content-Security-Policy violation reports (report-to and report-uri name /csp-reports). A report
 * is the organisation's when its report address carries the organisation's signed token (pages
 * drawn for a signed-in person), else it has none.
 */
export const cspReports = pgTable(
  'csp_reports',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: tenantOrNone(),
    /** The effective directive, e.g. script-src-elem. */
    directive: text('directive').notNull(),
    /** The blocked URL, or inline / eval / data as the browser names them. */
    blockedUrl: text('blocked_url').notNull(),
    documentUrl: text('document_url'),
    sourceFile: text('source_file'),
    lineNumber: integer('line_number'),
    columnNumber: integer('column_number'),
    /** enforce | report */
    disposition: text('disposition').notNull(),
    sample: text('sample'),
    userAgent: text('user_agent'),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('csp_reports_tenant_received_idx').on(t.tenantId, t.receivedAt),
    index('csp_reports_tenant_group_idx').on(t.tenantId, t.directive, t.blockedUrl),
    tenantPolicy('csp_reports'),
    untenantedPolicy('csp_reports'),
  ],
).enableRLS()

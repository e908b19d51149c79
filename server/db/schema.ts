import { sql } from 'drizzle-orm'
import { type AnyPgColumn, bigint, boolean, index, integer, jsonb, pgPolicy, pgRole, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'

/**
 * The role every tenant transaction runs as (SET LOCAL ROLE). It is created by the first, custom
 * migration and must never be able to bypass row-level security: start-up checks that.
 */
export const appUser = pgRole('app_user').existing()

export const currentTenant = sql`nullif(current_setting('app.tenant_id', true), '')::uuid`
const currentUser = sql`nullif(current_setting('app.user_id', true), '')::uuid`

/** Row-level security for a tenant-owned table: a row is visible only inside its tenant. */
export function tenantPolicy(name: string) {
  return pgPolicy(`${name}_tenant_isolation`, {
    as: 'permissive',
    for: 'all',
    to: appUser,
    using: sql`tenant_id = ${currentTenant}`,
    withCheck: sql`tenant_id = ${currentTenant}`,
  })
}

/** The tenant column of a tenant-owned table (the first column of its primary key). */
export const tenantRef = () =>
  uuid('tenant_id')
    .notNull()
    .references(() => tenants.id, { onDelete: 'cascade' })

export const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
}

// ---- Global identity and infrastructure (not owned by one tenant) ----

export const tenants = pgTable('tenants', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique(),
  mfaEnforced: boolean('mfa_enforced').notNull().default(false),
  /** Photo and document storage allowed to the tenant, in bytes (issue 4): 10 GiB by default. */
  storageQuotaBytes: bigint('storage_quota_bytes', { mode: 'number' })
    .notNull()
    .default(10 * 1024 ** 3),
  /** This tenant's feature flags (spec §3 session featureFlags), over the server's FEATURE_FLAGS. */
  featureFlags: jsonb('feature_flags').$type<Record<string, unknown>>().notNull().default({}),
  /** Site settings (issue 14): the days work happens on, ISO numbers (1 Monday … 7 Sunday), for due dates. */
  workingDays: jsonb('working_days').$type<number[]>().notNull().default([1, 2, 3, 4, 5]),
  /** The organisation's logo in the blob store, and its content type. */
  logoBlobKey: text('logo_blob_key'),
  logoContentType: text('logo_content_type'),
  /** Organisation-wide defaults of /settings/admin: { licensing: {...}, diagnostics: {...} }. */
  orgSettings: jsonb('org_settings').$type<Record<string, unknown>>().notNull().default({}),
  ...timestamps,
})

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull(),
    displayName: text('display_name').notNull(),
    firstName: text('first_name'),
    lastName: text('last_name'),
    position: text('position'),
    passwordHash: text('password_hash'),
    /** active | blocked | inactive */
    status: text('status').notNull().default('active'),
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true }),
    mfaEnforced: boolean('mfa_enforced').notNull().default(false),
    /** Bumped by every change of the person (an administrator's or their own); a save against an older one is refused (issue 36 §4, expectedRevision). */
    revision: bigint('revision', { mode: 'number' }).notNull().default(0),
    /** Who saved last: named in a refused stale save. */
    updatedBy: uuid('updated_by').references((): AnyPgColumn => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [uniqueIndex('users_email_lower_idx').on(sql`lower(${t.email})`)],
)

export const mfaSecrets = pgTable('mfa_secrets', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  secret: text('secret').notNull(),
  confirmedAt: timestamp('confirmed_at', { withTimezone: true }),
  /** The last accepted TOTP time step: a code is accepted once. */
  lastUsedStep: bigint('last_used_step', { mode: 'number' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
})

export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tokenHash: text('token_hash').notNull().unique(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    /** user | admin */
    kind: text('kind').notNull(),
    requiresMfa: boolean('requires_mfa').notNull().default(false),
    /** The second step must first enrol an authenticator. */
    mfaEnrollment: boolean('mfa_enrollment').notNull().default(false),
    issuedAt: timestamp('issued_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** However active, the session ends here (its absolute lifetime). */
    maxExpiresAt: timestamp('max_expires_at', { withTimezone: true }).notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    ip: text('ip'),
    userAgent: text('user_agent'),
    /** The registered device (devices.device_id) this session signed in from; revoking the device ends it. */
    deviceId: text('device_id'),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
)

/** One-time tokens sent by mail: e-mail verification and password reset. Only hashes are stored. */
export const authTokens = pgTable(
  'auth_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tokenHash: text('token_hash').notNull().unique(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** verify-email | reset-password | change-email */
    purpose: text('purpose').notNull(),
    /** change-email: the new address, which becomes the account's once the link is followed. */
    newEmail: text('new_email'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('auth_tokens_user_idx').on(t.userId, t.purpose)],
)

/**
 * Counters of rate-limiter-flexible (server/domain/auth/rate-limiter.ts): failed sign-ins and
 * mail-sending calls per account, client and address, shared by every instance. The column names
 * are the library's (key, points, expire). Not tenant-owned: most keys exist before any sign-in.
 */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  points: integer('points').notNull(),
  expire: timestamp('expire', { withTimezone: true }),
})

/** Stored first responses for idempotency keys, replayed for 24 hours. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    key: text('key').notNull(),
    /** The user id, or the anonymous CSRF binding for calls made before sign-in. */
    principal: text('principal').notNull(),
    route: text('route').notNull(),
    requestHash: text('request_hash').notNull(),
    /** running | done */
    state: text('state').notNull().default('running'),
    responseStatus: integer('response_status'),
    responseHeaders: jsonb('response_headers').$type<Record<string, string>>(),
    responseBody: text('response_body'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.principal, t.route] })],
)

/** Mail waiting to be delivered; SMTP delivery arrives with the admin configuration work. */
export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').references(() => tenants.id, { onDelete: 'cascade' }),
    toAddress: text('to_address').notNull(),
    template: text('template').notNull(),
    subject: text('subject').notNull(),
    textBody: text('text_body').notNull(),
    /** The HTML part (issue 14); the plain-text part is always sent too. Null for mail queued before it. */
    htmlBody: text('html_body'),
    /** queued | sending | sent | dead (gave up after the last attempt) | cancelled */
    status: text('status').notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    /** Not tried again before this (back-off after a failure). */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    /** When a worker claimed it (status sending): a claim older than the lease is taken over. */
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
    lastFailureAt: timestamp('last_failure_at', { withTimezone: true }),
    /** The transport that took (or last tried) it: instance, file or tenant:{id}. */
    transport: text('transport'),
    cancelledAt: timestamp('cancelled_at', { withTimezone: true }),
  },
  (t) => [index('mail_outbox_to_idx').on(t.toAddress, t.createdAt), index('mail_outbox_due_idx').on(t.status, t.nextAttemptAt), index('mail_outbox_tenant_idx').on(t.tenantId, t.createdAt)],
)

// ---- Tenant-owned (row-level security on app.tenant_id) ----

export const memberships = pgTable(
  'memberships',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    id: uuid('id').notNull().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** admin | read-write | read-only */
    roleKey: text('role_key').notNull(),
    /** active | invited | suspended */
    status: text('status').notNull().default('active'),
    isDefault: boolean('is_default').notNull().default(false),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('memberships_tenant_user_idx').on(t.tenantId, t.userId),
    index('memberships_user_idx').on(t.userId),
    tenantPolicy('memberships'),
    // Signing in must list a user's own organisations before a tenant is chosen (withUser).
    pgPolicy('memberships_own_rows', { as: 'permissive', for: 'select', to: appUser, using: sql`user_id = ${currentUser}` }),
  ],
).enableRLS()

export const devices = pgTable(
  'devices',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    id: uuid('id').notNull().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    deviceId: text('device_id').notNull(),
    platform: text('platform').notNull(),
    name: text('name'),
    pushToken: text('push_token'),
    registeredAt: timestamp('registered_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] }), uniqueIndex('devices_tenant_user_device_idx').on(t.tenantId, t.userId, t.deviceId), tenantPolicy('devices')],
).enableRLS()

/**
 * Audit trail. Security events that happen before a tenant is known (a failed sign-in for an
 * unknown address) carry no tenant; the application role never sees those rows.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').references(() => tenants.id, { onDelete: 'cascade' }),
    actorUserId: uuid('actor_user_id'),
    action: text('action').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    ip: text('ip'),
    correlationId: text('correlation_id'),
    data: jsonb('data').$type<Record<string, unknown>>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * The hash chain (issue 13), set by the audit_events_chain trigger, never by the application:
     * the entry's place in its tenant's chain, the previous entry's hash and this entry's
     * SHA-256 over that hash and its own fields (docs/admin.md "Audit").
     */
    chainSeq: bigint('chain_seq', { mode: 'number' }),
    prevHash: text('prev_hash'),
    hash: text('hash'),
  },
  (t) => [
    index('audit_events_tenant_created_idx').on(t.tenantId, t.createdAt),
    index('audit_events_tenant_chain_idx').on(t.tenantId, t.chainSeq),
    tenantPolicy('audit_events'),
    // Events without a tenant may be written, never read back through the application role.
    pgPolicy('audit_events_untenanted_insert', { as: 'permissive', for: 'insert', to: appUser, withCheck: sql`tenant_id is null` }),
  ],
).enableRLS()

/**
 * The head of each audit hash chain (one per tenant, `global` for events without one): the last
 * link's number and hash, row-locked by the audit_events_chain trigger while it appends, so links
 * are handed out one at a time. Written only by that trigger.
 */
export const auditChainHeads = pgTable('audit_chain_heads', {
  chainKey: text('chain_key').primaryKey(),
  seq: bigint('seq', { mode: 'number' }).notNull(),
  hash: text('hash'),
})

/** Tables whose rows belong to one tenant; start-up checks each has row-level security forced. */
export const tenantTables = ['memberships', 'devices', 'audit_events'] as const

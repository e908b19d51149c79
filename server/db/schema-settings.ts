import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { tenantPolicy, tenantRef, users } from './schema'

/**
 * Administration part 2 (issue 14): the organisation's configuration by category with every
 * version kept, its e-mail templates, notification preferences, each person's settings, and the
 * health of each mail transport. Secrets are stored sealed (AES-256-GCM, docs/admin/configuration.md)
 * in `secrets`, apart from the plain `values`, and are never sent back.
 */

/** The current configuration of one category of one organisation. */
export const adminConfig = pgTable(
  'admin_config',
  {
    tenantId: tenantRef(),
    /** general | security | mail | storage | telemetry | identity-provider | realtime | retention */
    category: text('category').notNull(),
    values: jsonb('values').$type<Record<string, unknown>>().notNull().default({}),
    /** Field name → sealed secret. */
    secrets: jsonb('secrets').$type<Record<string, string>>().notNull().default({}),
    /** Starts at 1 with the first save; every save and rollback adds one (the ETag). */
    version: integer('version').notNull().default(1),
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    /** The last test of the category: { ok, kind, message, testedAtUtc, testedBy }. */
    lastTest: jsonb('last_test').$type<Record<string, unknown>>(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.category] }), tenantPolicy('admin_config')],
).enableRLS()

/** Every saved version of a category, for the history and rollback. */
export const adminConfigVersions = pgTable(
  'admin_config_versions',
  {
    tenantId: tenantRef(),
    category: text('category').notNull(),
    version: integer('version').notNull(),
    values: jsonb('values').$type<Record<string, unknown>>().notNull(),
    secrets: jsonb('secrets').$type<Record<string, string>>().notNull().default({}),
    changedBy: uuid('changed_by').references(() => users.id, { onDelete: 'set null' }),
    changedAt: timestamp('changed_at', { withTimezone: true }).notNull().defaultNow(),
    /** Set when this version restored an earlier one. */
    restoredFrom: integer('restored_from'),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.category, t.version] }), tenantPolicy('admin_config_versions')],
).enableRLS()

/** An organisation's own version of one mail the product sends; without a row the default applies. */
export const emailTemplates = pgTable(
  'email_templates',
  {
    tenantId: tenantRef(),
    key: text('key').notNull(),
    subject: text('subject').notNull(),
    htmlBody: text('html_body').notNull(),
    textBody: text('text_body').notNull(),
    version: integer('version').notNull().default(1),
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.key] }), tenantPolicy('email_templates')],
).enableRLS()

/** Which events mail a member (spec §3 "Notification preferences"); without a row, the defaults. */
export const notificationPreferences = pgTable(
  'notification_preferences',
  {
    tenantId: tenantRef(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    assigned: boolean('assigned').notNull().default(true),
    response: boolean('response').notNull().default(true),
    closeRequested: boolean('close_requested').notNull().default(true),
    reviewTask: boolean('review_task').notNull().default(true),
    transmittal: boolean('transmittal').notNull().default(true),
    /** In-app notifications per kind (the bell, /notifications); the columns above are the mails. */
    inAppAssigned: boolean('in_app_assigned').notNull().default(true),
    inAppCloseRequested: boolean('in_app_close_requested').notNull().default(true),
    inAppReviewTask: boolean('in_app_review_task').notNull().default(true),
    inAppTransmittal: boolean('in_app_transmittal').notNull().default(true),
    inAppSuperseded: boolean('in_app_superseded').notNull().default(true),
    /** daily | off */
    digest: text('digest').notNull().default('off'),
    lastDigestAt: timestamp('last_digest_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.userId] }), tenantPolicy('notification_preferences')],
).enableRLS()

/**
 * In-app notifications (the header's bell and /notifications, docs/settings-appearance-notifications.md):
 * one row per person told about one event in one organisation. `kind` is one of NOTIFICATION_KINDS
 * (app/lib/notifications.ts); `link` is the portal path of the screen it is about.
 */
export const notifications = pgTable(
  'notifications',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    title: text('title').notNull(),
    link: text('link').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    readAt: timestamp('read_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index('notifications_user_created_idx').on(t.tenantId, t.userId, t.createdAt),
    tenantPolicy('notifications'),
  ],
).enableRLS()

/** A person's own settings that follow them across devices (the appearance saved with PATCH /settings/appearance). */
export const userSettings = pgTable('user_settings', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  appearance: jsonb('appearance').$type<Record<string, unknown>>(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
})

/**
 * Failure tracking per mail transport (spec §3 "Failure tracking"): the instance's own transport
 * (`instance`, `file`) or an organisation's SMTP server (`tenant:{id}`).
 */
export const mailTransportHealth = pgTable(
  'mail_transport_health',
  {
    key: text('key').primaryKey(),
    tenantId: uuid('tenant_id'),
    failureCount: integer('failure_count').notNull().default(0),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    lastFailureAt: timestamp('last_failure_at', { withTimezone: true }),
    lastSuccessAt: timestamp('last_success_at', { withTimezone: true }),
    lastError: text('last_error'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('mail_transport_health_tenant_idx').on(t.tenantId)],
)

export const settingsTenantTables = ['admin_config', 'admin_config_versions', 'email_templates', 'notification_preferences', 'notifications'] as const

import { sql } from 'drizzle-orm'
import { bigint, boolean, foreignKey, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { tenantPolicy, tenantRef, timestamps, users } from './schema'
import { projects } from './schema-reporting'

/**
 * The Administration area (issue 13): invites, project invites and their typed codes, join
 * requests, support tickets and the retention policy. Tokens and codes are stored as SHA-256
 * hashes only; a token is looked up before any tenant is known (docs/admin.md "Invites").
 */

/** An invitation to join the organisation; its state is derived (pending, accepted, cancelled, expired). */
export const invites = pgTable(
  'invites',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    email: text('email').notNull(),
    /** admin | read-write | read-only */
    roleKey: text('role_key').notNull(),
    message: text('message'),
    tokenHash: text('token_hash').notNull(),
    invitedBy: uuid('invited_by').references(() => users.id, { onDelete: 'set null' }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    lastSentAt: timestamp('last_sent_at', { withTimezone: true }).notNull().defaultNow(),
    sendCount: integer('send_count').notNull().default(1),
    acceptedAt: timestamp('accepted_at', { withTimezone: true }),
    acceptedBy: uuid('accepted_by').references(() => users.id, { onDelete: 'set null' }),
    cancelledAt: timestamp('cancelled_at', { withTimezone: true }),
    cancelledBy: uuid('cancelled_by').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('invites_token_hash_idx').on(t.tokenHash),
    index('invites_tenant_created_idx').on(t.tenantId, t.createdAt, t.id),
    index('invites_tenant_email_idx').on(t.tenantId, sql`lower(${t.email})`),
    tenantPolicy('invites'),
  ],
).enableRLS()

/**
 * An invitation to a project: a link (`/invite/project/{token}`) and a short code a person can
 * type on site. Claiming joins the organisation with the role key (when not a member yet) and
 * grants the project.
 */
export const projectInvites = pgTable(
  'project_invites',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    projectId: uuid('project_id').notNull(),
    /** The address it was sent to; null for a code handed out on site. */
    email: text('email'),
    roleKey: text('role_key').notNull(),
    message: text('message'),
    tokenHash: text('token_hash').notNull(),
    /** SHA-256 of the normalised short code (upper case, no separators). */
    codeHash: text('code_hash'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** How many people may claim it; null is no limit until it expires. */
    maxUses: integer('max_uses'),
    useCount: integer('use_count').notNull().default(0),
    cancelledAt: timestamp('cancelled_at', { withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.projectId], foreignColumns: [projects.tenantId, projects.id] }).onDelete('cascade'),
    uniqueIndex('project_invites_token_hash_idx').on(t.tokenHash),
    uniqueIndex('project_invites_code_hash_idx').on(t.codeHash),
    index('project_invites_project_idx').on(t.tenantId, t.projectId, t.createdAt),
    tenantPolicy('project_invites'),
  ],
).enableRLS()

/** A signed-in person asking to join an organisation (by its slug or an invite code). */
export const joinRequests = pgTable(
  'join_requests',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    message: text('message'),
    /** pending | approved | declined | withdrawn */
    status: text('status').notNull().default('pending'),
    /** The role key given on approval. */
    roleKey: text('role_key'),
    declineReason: text('decline_reason'),
    decidedBy: uuid('decided_by').references(() => users.id, { onDelete: 'set null' }),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('join_requests_pending_idx')
      .on(t.tenantId, t.userId)
      .where(sql`status = 'pending'`),
    index('join_requests_tenant_created_idx').on(t.tenantId, t.createdAt, t.id),
    tenantPolicy('join_requests'),
  ],
).enableRLS()

/** A support ticket opened from Settings, numbered per organisation. */
export const supportTickets = pgTable(
  'support_tickets',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    number: integer('number').notNull(),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    /** open | pending | resolved | closed */
    status: text('status').notNull().default('open'),
    openedBy: uuid('opened_by').references(() => users.id, { onDelete: 'set null' }),
    assigneeId: uuid('assignee_id').references(() => users.id, { onDelete: 'set null' }),
    closedAt: timestamp('closed_at', { withTimezone: true }),
    /** Bumped by every change of its status or assignee (a reply's too); a save against an older one is refused (issue 36 §4, expectedRevision). */
    revision: bigint('revision', { mode: 'number' }).notNull().default(0),
    /** Who saved last: named in a refused stale save. */
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('support_tickets_number_idx').on(t.tenantId, t.number),
    index('support_tickets_tenant_updated_idx').on(t.tenantId, t.updatedAt, t.id),
    tenantPolicy('support_tickets'),
  ],
).enableRLS()

/** A reply in a ticket's thread. */
export const supportMessages = pgTable(
  'support_messages',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    ticketId: uuid('ticket_id').notNull(),
    authorId: uuid('author_id').references(() => users.id, { onDelete: 'set null' }),
    body: text('body').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.ticketId], foreignColumns: [supportTickets.tenantId, supportTickets.id] }).onDelete('cascade'),
    index('support_messages_ticket_idx').on(t.tenantId, t.ticketId, t.createdAt),
    tenantPolicy('support_messages'),
  ],
).enableRLS()

/** A file attached to a ticket through the upload (an upload session of purpose `support`). */
export const supportAttachments = pgTable(
  'support_attachments',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    ticketId: uuid('ticket_id').notNull(),
    uploadedBy: uuid('uploaded_by').references(() => users.id, { onDelete: 'set null' }),
    fileName: text('file_name').notNull(),
    contentType: text('content_type').notNull(),
    sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
    sha256: text('sha256').notNull(),
    blobKey: text('blob_key').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.ticketId], foreignColumns: [supportTickets.tenantId, supportTickets.id] }).onDelete('cascade'),
    index('support_attachments_ticket_idx').on(t.tenantId, t.ticketId, t.createdAt),
    tenantPolicy('support_attachments'),
  ],
).enableRLS()

/** The organisation's retention policy: closed items and archived reports are archived after N days, purged after M. */
export const retentionPolicies = pgTable(
  'retention_policies',
  {
    tenantId: tenantRef().primaryKey(),
    enabled: boolean('enabled').notNull().default(false),
    archiveAfterDays: integer('archive_after_days').notNull().default(365),
    purgeAfterDays: integer('purge_after_days').notNull().default(2555),
    /** Rows purged so far (they are gone, so they are counted here). */
    purgedCount: bigint('purged_count', { mode: 'number' }).notNull().default(0),
    lastRunAt: timestamp('last_run_at', { withTimezone: true }),
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    /** Bumped by every save of the policy (not by the job's runs): a save against an older one is refused (issue 36 §4). */
    revision: bigint('revision', { mode: 'number' }).notNull().default(0),
    ...timestamps,
  },
  () => [tenantPolicy('retention_policies')],
).enableRLS()

export const adminTenantTables = ['invites', 'project_invites', 'join_requests', 'support_tickets', 'support_messages', 'support_attachments', 'retention_policies'] as const

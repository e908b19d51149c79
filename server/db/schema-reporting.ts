import { sql } from 'drizzle-orm'
import { bigint, boolean, date, foreignKey, index, integer, jsonb, pgPolicy, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { appUser, currentTenant, tenantPolicy, tenantRef, timestamps, users } from './schema'

/**
 * Site reporting (issue 3): projects, reports, report items with responses and close
 * confirmation, their activity, packages (trades), saved views, and the per-tenant change log
 * that mobile sync and realtime read. Every table is tenant-owned, with row-level security.
 */

/** The tenant's latest revision: bumped, row-locked, once per change, so the change log is gap-free. */
export const tenantRevisions = pgTable(
  'tenant_revisions',
  {
    tenantId: tenantRef().primaryKey(),
    revision: bigint('revision', { mode: 'number' }).notNull().default(0),
    /** The revision of the last archive or unarchive: the mobile feed's scope changed there (docs/site-reporting.md). */
    scopeRevision: bigint('scope_revision', { mode: 'number' }).notNull().default(0),
    /** Change-log rows up to this revision may be gone (compacted): a cursor below it is stale. */
    compactedThrough: bigint('compacted_through', { mode: 'number' }).notNull().default(0),
  },
  () => [tenantPolicy('tenant_revisions')],
).enableRLS()

/**
 * The revision of a list edited as a whole that has no row of its own (issue 36 §4): a project's
 * responsibility matrix, its metadata fields, the permissions of a project, folder or document,
 * an item's pin (which is removed and placed again, so a row of its own would start over), the
 * organisation's switches (kept in tenants.org_settings), a drawings overlay (the organisation's,
 * keyed by its id, or a project's: colours that are removed when reset, and sheet settings).
 * `subject` names the list, `subjectId` its owner; no row is revision 0. Bumped on every save
 * (server/domain/tenancy/edit-conflict.ts), so a stale save of the whole list is refused.
 */
export const listRevisions = pgTable(
  'list_revisions',
  {
    tenantId: tenantRef(),
    /** matrix | metadata-fields | permissions | item-pin | organisation-switches | drawings-overlay */
    subject: text('subject').notNull(),
    subjectId: uuid('subject_id').notNull(),
    revision: bigint('revision', { mode: 'number' }).notNull().default(0),
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.subject, t.subjectId] }), tenantPolicy('list_revisions')],
).enableRLS()

/** Ordered, gap-free per tenant: sync and realtime read it from a cursor (a revision). */
export const changeLog = pgTable(
  'change_log',
  {
    tenantId: tenantRef(),
    revision: bigint('revision', { mode: 'number' }).notNull(),
    /** Project | Report | ReportItem */
    entity: text('entity').notNull(),
    entityId: uuid('entity_id').notNull(),
    /** Created | Updated | Deleted */
    changeType: text('change_type').notNull(),
    changedAt: timestamp('changed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.revision] }), tenantPolicy('change_log')],
).enableRLS()

export const projects = pgTable(
  'projects',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    /** Nullable on purpose: a project without a title shows as "Untitled Project" (spec §3). */
    title: text('title'),
    code: text('code'),
    /** active | archived */
    status: text('status').notNull().default('active'),
    archivedAt: timestamp('archived_at', { withTimezone: true }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    /** Who made the last change: the "Changed by … since you opened it" of a stale save (issue 36 §4). */
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    revision: bigint('revision', { mode: 'number' }).notNull(),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index('projects_tenant_status_created_idx').on(t.tenantId, t.status, t.createdAt, t.id),
    tenantPolicy('projects'),
  ],
).enableRLS()

export const reports = pgTable(
  'reports',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    projectId: uuid('project_id').notNull(),
    /** Nullable: shows as "Untitled Report" (spec §3). */
    title: text('title'),
    /** active | archived */
    status: text('status').notNull().default('active'),
    archivedAt: timestamp('archived_at', { withTimezone: true }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    /** Who made the last change: the "Changed by … since you opened it" of a stale save (issue 36 §4). */
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    revision: bigint('revision', { mode: 'number' }).notNull(),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.projectId], foreignColumns: [projects.tenantId, projects.id] }).onDelete('cascade'),
    index('reports_tenant_project_created_idx').on(t.tenantId, t.projectId, t.createdAt, t.id),
    tenantPolicy('reports'),
  ],
).enableRLS()

/** Trades or work packages. Active per organisation; a project may switch one off or add its own. */
export const packages = pgTable(
  'packages',
  {
    tenantId: tenantRef(),
    key: text('key').notNull(),
    name: text('name').notNull(),
    active: boolean('active').notNull().default(true),
    sortOrder: integer('sort_order').notNull().default(0),
    ...timestamps,
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.key] }), tenantPolicy('packages')],
).enableRLS()

export const projectPackages = pgTable(
  'project_packages',
  {
    tenantId: tenantRef(),
    projectId: uuid('project_id').notNull(),
    packageKey: text('package_key').notNull(),
    active: boolean('active').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.projectId, t.packageKey] }),
    foreignKey({ columns: [t.tenantId, t.projectId], foreignColumns: [projects.tenantId, projects.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.tenantId, t.packageKey], foreignColumns: [packages.tenantId, packages.key] }).onDelete('cascade'),
    tenantPolicy('project_packages'),
  ],
).enableRLS()

export const reportItems = pgTable(
  'report_items',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    reportId: uuid('report_id').notNull(),
    /** Denormalised from the report: the outstanding list filters by project without a join. */
    projectId: uuid('project_id').notNull(),
    /** A short number people can say on site ("item 42"), per tenant. */
    number: integer('number').notNull(),
    title: text('title').notNull(),
    description: text('description'),
    /** open | close_requested | closed */
    status: text('status').notNull().default('open'),
    /** low | medium | high | critical */
    priority: text('priority').notNull().default('medium'),
    assigneeUserId: uuid('assignee_user_id').references(() => users.id, { onDelete: 'set null' }),
    packageKey: text('package_key'),
    location: text('location'),
    dueDate: date('due_date', { mode: 'string' }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    closedAt: timestamp('closed_at', { withTimezone: true }),
    /** Set by the retention job once a closed item is past the organisation's archive age (issue 13). */
    archivedAt: timestamp('archived_at', { withTimezone: true }),
    closedBy: uuid('closed_by').references(() => users.id, { onDelete: 'set null' }),
    /** Deleted items stay for their activity and for sync's Deleted entries, but are never served. */
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
    revision: bigint('revision', { mode: 'number' }).notNull(),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.reportId], foreignColumns: [reports.tenantId, reports.id] }).onDelete('cascade'),
    uniqueIndex('report_items_tenant_number_idx').on(t.tenantId, t.number),
    // The outstanding list: keyset paging, newest first, over items not closed nor deleted.
    index('report_items_outstanding_idx')
      .on(t.tenantId, t.createdAt.desc(), t.id.desc())
      .where(sql`status <> 'closed' and deleted_at is null`),
    index('report_items_outstanding_project_idx')
      .on(t.tenantId, t.projectId, t.createdAt.desc(), t.id.desc())
      .where(sql`status <> 'closed' and deleted_at is null`),
    index('report_items_report_idx').on(t.tenantId, t.reportId, t.createdAt),
    // A report's itemCounts (live items per status) from the index alone, once the table is vacuumed.
    index('report_items_report_status_idx').on(t.tenantId, t.reportId, t.status).where(sql`deleted_at is null`),
    tenantPolicy('report_items'),
  ],
).enableRLS()

/** Responses, close requests, confirmations and rejections: the item's thread. Never edited. */
export const itemResponses = pgTable(
  'item_responses',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    itemId: uuid('item_id').notNull(),
    authorUserId: uuid('author_user_id').references(() => users.id, { onDelete: 'set null' }),
    /** response | close_confirmed | close_rejected */
    kind: text('kind').notNull(),
    body: text('body'),
    requestClose: boolean('request_close').notNull().default(false),
    photoIds: jsonb('photo_ids').$type<string[]>().notNull().default([]),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.itemId], foreignColumns: [reportItems.tenantId, reportItems.id] }).onDelete('cascade'),
    index('item_responses_item_idx').on(t.tenantId, t.itemId, t.createdAt),
    pgPolicy('item_responses_read', { as: 'permissive', for: 'select', to: appUser, using: sql`tenant_id = ${currentTenant}` }),
    pgPolicy('item_responses_append', { as: 'permissive', for: 'insert', to: appUser, withCheck: sql`tenant_id = ${currentTenant}` }),
  ],
).enableRLS()

export type ActivityChange = { field: string; from: unknown; to: unknown }

/** Every change to an item: who, when, old → new. Append-only: the application role cannot edit it. */
export const itemActivity = pgTable(
  'item_activity',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    itemId: uuid('item_id').notNull(),
    actorUserId: uuid('actor_user_id').references(() => users.id, { onDelete: 'set null' }),
    /** created | updated | responded | close_requested | closed | reopened | deleted */
    action: text('action').notNull(),
    changes: jsonb('changes').$type<ActivityChange[]>().notNull().default([]),
    /** Why, when the action carries one: the reason a close was rejected (written with the row; the row never changes). */
    reason: text('reason'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.itemId], foreignColumns: [reportItems.tenantId, reportItems.id] }).onDelete('cascade'),
    index('item_activity_item_idx').on(t.tenantId, t.itemId, t.createdAt),
    index('item_activity_tenant_created_idx').on(t.tenantId, t.createdAt),
    pgPolicy('item_activity_read', { as: 'permissive', for: 'select', to: appUser, using: sql`tenant_id = ${currentTenant}` }),
    pgPolicy('item_activity_append', { as: 'permissive', for: 'insert', to: appUser, withCheck: sql`tenant_id = ${currentTenant}` }),
  ],
).enableRLS()

/** The items screen's state (filters, columns, grouping, layout) under a name. */
export const savedViews = pgTable(
  'saved_views',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    ownerUserId: uuid('owner_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** personal | shared */
    scope: text('scope').notNull(),
    /** The items screen's URL query, e.g. "status=open&group=package&layout=cards". */
    query: text('query').notNull(),
    ...timestamps,
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] }), index('saved_views_tenant_scope_idx').on(t.tenantId, t.scope), tenantPolicy('saved_views')],
).enableRLS()

/** Tenant-owned tables of this module; start-up checks each forces row-level security. */
export const reportingTenantTables = [
  'tenant_revisions',
  'list_revisions',
  'change_log',
  'projects',
  'reports',
  'packages',
  'project_packages',
  'report_items',
  'item_responses',
  'item_activity',
  'saved_views',
] as const

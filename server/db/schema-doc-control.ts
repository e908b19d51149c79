import { sql } from 'drizzle-orm'
import { bigint, boolean, date, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { tenantPolicy, tenantRef, timestamps, users } from './schema'
import { projects } from './schema-reporting'
import { documentRevisions, documents } from './schema-documents'
import type { Milestone, WorkflowStepDefinition } from '~/lib/doc-control/types'

/**
 * Document control (issue 12, docs/doc-control.md): the parties of a project, its responsibility
 * matrix and deliverables register; review workflows from versioned templates; sets; transmittals
 * with their recipients and ZIP packages. Every table is tenant-owned, with row-level security.
 */

// ---- Parties, matrix, deliverables ----

export const projectParties = pgTable(
  'project_parties',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    projectId: uuid('project_id').notNull(),
    name: text('name').notNull(),
    code: text('code'),
    /** appointing | lead-appointed | task-team */
    role: text('role').notNull(),
    parentId: uuid('parent_id'),
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    /** Bumped by every save: a save against an older one is refused (issue 36 §4). */
    revision: bigint('revision', { mode: 'number' }).notNull().default(0),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.projectId], foreignColumns: [projects.tenantId, projects.id] }).onDelete('cascade'),
    uniqueIndex('project_parties_name_idx').on(t.tenantId, t.projectId, sql`lower(${t.name})`),
    tenantPolicy('project_parties'),
  ],
).enableRLS()

export const partyMembers = pgTable(
  'party_members',
  {
    tenantId: tenantRef(),
    partyId: uuid('party_id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    lead: boolean('lead').notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.partyId, t.userId] }),
    foreignKey({ columns: [t.tenantId, t.partyId], foreignColumns: [projectParties.tenantId, projectParties.id] }).onDelete('cascade'),
    index('party_members_user_idx').on(t.tenantId, t.userId),
    tenantPolicy('party_members'),
  ],
).enableRLS()

/**
 * Outside contacts of a party (issue 32): people of another firm, known by name, company and
 * e-mail, who are no members of the organisation and take no seat. A transmittal reaches them by a
 * signed link (transmittalLinks).
 */
export const partyContacts = pgTable(
  'party_contacts',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    partyId: uuid('party_id').notNull(),
    name: text('name').notNull(),
    company: text('company').notNull().default(''),
    email: text('email').notNull(),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.partyId], foreignColumns: [projectParties.tenantId, projectParties.id] }).onDelete('cascade'),
    uniqueIndex('party_contacts_email_idx').on(t.tenantId, t.partyId, sql`lower(${t.email})`),
    tenantPolicy('party_contacts'),
  ],
).enableRLS()

export const matrixEntries = pgTable(
  'matrix_entries',
  {
    tenantId: tenantRef(),
    projectId: uuid('project_id').notNull(),
    discipline: text('discipline').notNull(),
    /** '' for any document type (a key column cannot be null). */
    docType: text('doc_type').notNull().default(''),
    partyId: uuid('party_id').notNull(),
    /** produce | review */
    responsibility: text('responsibility').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.projectId, t.discipline, t.docType, t.partyId, t.responsibility] }),
    foreignKey({ columns: [t.tenantId, t.projectId], foreignColumns: [projects.tenantId, projects.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.tenantId, t.partyId], foreignColumns: [projectParties.tenantId, projectParties.id] }).onDelete('cascade'),
    tenantPolicy('matrix_entries'),
  ],
).enableRLS()

export const deliverables = pgTable(
  'deliverables',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    projectId: uuid('project_id').notNull(),
    number: text('number').notNull(),
    title: text('title').notNull(),
    partyId: uuid('party_id'),
    milestones: jsonb('milestones').$type<Milestone[]>().notNull().default([]),
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    /** Bumped by every save: a save against an older one is refused (issue 36 §4). */
    revision: bigint('revision', { mode: 'number' }).notNull().default(0),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.projectId], foreignColumns: [projects.tenantId, projects.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.tenantId, t.partyId], foreignColumns: [projectParties.tenantId, projectParties.id] }).onDelete('set null'),
    uniqueIndex('deliverables_number_idx').on(t.tenantId, t.projectId, sql`upper(${t.number})`),
    tenantPolicy('deliverables'),
  ],
).enableRLS()

// ---- Workflows ----

/** A template; its steps live in versions, and a running workflow keeps the version it started with. */
export const workflowTemplates = pgTable(
  'workflow_templates',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    name: text('name').notNull(),
    description: text('description'),
    currentVersion: integer('current_version').notNull().default(1),
    archivedAt: timestamp('archived_at', { withTimezone: true }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] }), uniqueIndex('workflow_templates_name_idx').on(t.tenantId, sql`lower(${t.name})`), tenantPolicy('workflow_templates')],
).enableRLS()

export const workflowTemplateVersions = pgTable(
  'workflow_template_versions',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    templateId: uuid('template_id').notNull(),
    version: integer('version').notNull(),
    steps: jsonb('steps').$type<WorkflowStepDefinition[]>().notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.templateId], foreignColumns: [workflowTemplates.tenantId, workflowTemplates.id] }).onDelete('cascade'),
    uniqueIndex('workflow_template_versions_idx').on(t.tenantId, t.templateId, t.version),
    tenantPolicy('workflow_template_versions'),
  ],
).enableRLS()

export const workflows = pgTable(
  'workflows',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    projectId: uuid('project_id').notNull(),
    templateVersionId: uuid('template_version_id').notNull(),
    /** active | returned | approved | cancelled */
    status: text('status').notNull(),
    currentStep: integer('current_step'),
    round: integer('round').notNull().default(1),
    message: text('message'),
    dueAt: timestamp('due_at', { withTimezone: true }).notNull(),
    outcome: text('outcome'),
    startedBy: uuid('started_by').references(() => users.id, { onDelete: 'set null' }),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    /** The tenant revision of its last change (change log). */
    revision: bigint('revision', { mode: 'number' }).notNull(),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.projectId], foreignColumns: [projects.tenantId, projects.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.tenantId, t.templateVersionId], foreignColumns: [workflowTemplateVersions.tenantId, workflowTemplateVersions.id] }),
    index('workflows_project_idx').on(t.tenantId, t.projectId, t.status),
    tenantPolicy('workflows'),
  ],
).enableRLS()

/** The revisions under review (one per document; a resubmission replaces a document's revision and keeps the old row's round). */
export const workflowRevisions = pgTable(
  'workflow_revisions',
  {
    tenantId: tenantRef(),
    workflowId: uuid('workflow_id').notNull(),
    revisionId: uuid('revision_id').notNull(),
    documentId: uuid('document_id').notNull(),
    round: integer('round').notNull(),
    /** false once a resubmission replaced it. */
    current: boolean('current').notNull().default(true),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.workflowId, t.revisionId] }),
    foreignKey({ columns: [t.tenantId, t.workflowId], foreignColumns: [workflows.tenantId, workflows.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.tenantId, t.revisionId], foreignColumns: [documentRevisions.tenantId, documentRevisions.id] }),
    foreignKey({ columns: [t.tenantId, t.documentId], foreignColumns: [documents.tenantId, documents.id] }),
    index('workflow_revisions_revision_idx').on(t.tenantId, t.revisionId),
    tenantPolicy('workflow_revisions'),
  ],
).enableRLS()

/** One reviewer's task at one step of one round. */
export const workflowTasks = pgTable(
  'workflow_tasks',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    workflowId: uuid('workflow_id').notNull(),
    step: integer('step').notNull(),
    round: integer('round').notNull(),
    assigneeId: uuid('assignee_id')
      .notNull()
      .references(() => users.id),
    /** pending | done | reassigned | closed */
    status: text('status').notNull(),
    outcome: text('outcome'),
    comment: text('comment'),
    dueAt: timestamp('due_at', { withTimezone: true }).notNull(),
    actedAt: timestamp('acted_at', { withTimezone: true }),
    reminderSentAt: timestamp('reminder_sent_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.workflowId], foreignColumns: [workflows.tenantId, workflows.id] }).onDelete('cascade'),
    index('workflow_tasks_assignee_idx').on(t.tenantId, t.assigneeId, t.status),
    index('workflow_tasks_due_idx').on(t.status, t.dueAt),
    tenantPolicy('workflow_tasks'),
  ],
).enableRLS()

/** The record of every action (who, what, outcome, comment, when): part of the documents' history forever. */
export const workflowEvents = pgTable(
  'workflow_events',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    workflowId: uuid('workflow_id').notNull(),
    action: text('action').notNull(),
    actorId: uuid('actor_id').references(() => users.id, { onDelete: 'set null' }),
    step: integer('step'),
    outcome: text('outcome'),
    comment: text('comment'),
    revisionId: uuid('revision_id'),
    at: timestamp('at', { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.workflowId], foreignColumns: [workflows.tenantId, workflows.id] }).onDelete('cascade'),
    index('workflow_events_workflow_idx').on(t.tenantId, t.workflowId, t.at),
    tenantPolicy('workflow_events'),
  ],
).enableRLS()

// ---- Sets ----

export const documentSets = pgTable(
  'document_sets',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    projectId: uuid('project_id').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    /** draft | published */
    status: text('status').notNull().default('draft'),
    derivedFromId: uuid('derived_from_id'),
    publishedAt: timestamp('published_at', { withTimezone: true }),
    publishedBy: uuid('published_by').references(() => users.id, { onDelete: 'set null' }),
    publishMessage: text('publish_message'),
    publishPurpose: text('publish_purpose'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    /** Who saved it last: who changed it, when a save against an older revision is refused (issue 36 §4). */
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    revision: bigint('revision', { mode: 'number' }).notNull(),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.projectId], foreignColumns: [projects.tenantId, projects.id] }).onDelete('cascade'),
    uniqueIndex('document_sets_name_idx').on(t.tenantId, t.projectId, sql`lower(${t.name})`),
    tenantPolicy('document_sets'),
  ],
).enableRLS()

export const documentSetRevisions = pgTable(
  'document_set_revisions',
  {
    tenantId: tenantRef(),
    setId: uuid('set_id').notNull(),
    documentId: uuid('document_id').notNull(),
    revisionId: uuid('revision_id').notNull(),
    position: integer('position').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.setId, t.documentId] }),
    foreignKey({ columns: [t.tenantId, t.setId], foreignColumns: [documentSets.tenantId, documentSets.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.tenantId, t.revisionId], foreignColumns: [documentRevisions.tenantId, documentRevisions.id] }),
    foreignKey({ columns: [t.tenantId, t.documentId], foreignColumns: [documents.tenantId, documents.id] }),
    tenantPolicy('document_set_revisions'),
  ],
).enableRLS()

// ---- Transmittals ----

export const transmittals = pgTable(
  'transmittals',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    projectId: uuid('project_id').notNull(),
    /** Per project, from 1; the number people read is made from it by the project's format (transmittal_numbering). */
    seq: integer('seq').notNull(),
    number: text('number').notNull(),
    subject: text('subject').notNull().default(''),
    purpose: text('purpose').notNull().default('for-information'),
    message: text('message').notNull().default(''),
    responseDueDate: date('response_due_date', { mode: 'string' }),
    /** draft | sent | acknowledged | responded | closed */
    status: text('status').notNull().default('draft'),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    sentBy: uuid('sent_by').references(() => users.id, { onDelete: 'set null' }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    /** The wizard's step a draft was left at (details, revisions, recipients, message, review). */
    wizardStep: text('wizard_step').notNull().default('revisions'),
    /** The rule book's warnings when a revision's suitability did not fit the purpose, and who confirmed sending anyway (and when); null when none. */
    purposeWarnings: jsonb('purpose_warnings').$type<string[]>(),
    purposeConfirmedBy: uuid('purpose_confirmed_by').references(() => users.id, { onDelete: 'set null' }),
    purposeConfirmedAt: timestamp('purpose_confirmed_at', { withTimezone: true }),
    revision: bigint('revision', { mode: 'number' }).notNull(),
    /** Who saved last: named in a refused stale save. */
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.projectId], foreignColumns: [projects.tenantId, projects.id] }).onDelete('cascade'),
    uniqueIndex('transmittals_seq_idx').on(t.tenantId, t.projectId, t.seq),
    index('transmittals_status_idx').on(t.tenantId, t.projectId, t.status),
    tenantPolicy('transmittals'),
  ],
).enableRLS()

export const transmittalRevisions = pgTable(
  'transmittal_revisions',
  {
    tenantId: tenantRef(),
    transmittalId: uuid('transmittal_id').notNull(),
    documentId: uuid('document_id').notNull(),
    revisionId: uuid('revision_id').notNull(),
    position: integer('position').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.transmittalId, t.documentId] }),
    foreignKey({ columns: [t.tenantId, t.transmittalId], foreignColumns: [transmittals.tenantId, transmittals.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.tenantId, t.revisionId], foreignColumns: [documentRevisions.tenantId, documentRevisions.id] }),
    foreignKey({ columns: [t.tenantId, t.documentId], foreignColumns: [documents.tenantId, documents.id] }),
    tenantPolicy('transmittal_revisions'),
  ],
).enableRLS()

export const transmittalRecipients = pgTable(
  'transmittal_recipients',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    transmittalId: uuid('transmittal_id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    partyId: uuid('party_id'),
    /** pending (draft) | sent | opened | acknowledged | responded */
    status: text('status').notNull().default('pending'),
    openedAt: timestamp('opened_at', { withTimezone: true }),
    downloadedAt: timestamp('downloaded_at', { withTimezone: true }),
    downloads: integer('downloads').notNull().default(0),
    acknowledgedAt: timestamp('acknowledged_at', { withTimezone: true }),
    respondedAt: timestamp('responded_at', { withTimezone: true }),
    response: text('response'),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.transmittalId], foreignColumns: [transmittals.tenantId, transmittals.id] }).onDelete('cascade'),
    uniqueIndex('transmittal_recipients_user_idx').on(t.tenantId, t.transmittalId, t.userId),
    index('transmittal_recipients_inbox_idx').on(t.tenantId, t.userId),
    tenantPolicy('transmittal_recipients'),
  ],
).enableRLS()

/**
 * An outside contact's copy of a transmittal (issue 32, decision 024): the recipient entry of someone
 * without an account, reached by a signed link naming this row. The contact's name, company and
 * e-mail are copied when the transmittal is sent (the party's contact may change or go later).
 * The link works until `expiresAt` and while `revokedAt` is null.
 */
export const transmittalLinks = pgTable(
  'transmittal_links',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    transmittalId: uuid('transmittal_id').notNull(),
    contactId: uuid('contact_id'),
    partyId: uuid('party_id'),
    name: text('name').notNull(),
    company: text('company').notNull().default(''),
    email: text('email').notNull(),
    /** pending (draft) | sent | opened | acknowledged | responded */
    status: text('status').notNull().default('pending'),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    revokedBy: uuid('revoked_by').references(() => users.id, { onDelete: 'set null' }),
    openedAt: timestamp('opened_at', { withTimezone: true }),
    downloadedAt: timestamp('downloaded_at', { withTimezone: true }),
    views: integer('views').notNull().default(0),
    downloads: integer('downloads').notNull().default(0),
    acknowledgedAt: timestamp('acknowledged_at', { withTimezone: true }),
    respondedAt: timestamp('responded_at', { withTimezone: true }),
    response: text('response'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.transmittalId], foreignColumns: [transmittals.tenantId, transmittals.id] }).onDelete('cascade'),
    uniqueIndex('transmittal_links_email_idx').on(t.tenantId, t.transmittalId, sql`lower(${t.email})`),
    tenantPolicy('transmittal_links'),
  ],
).enableRLS()

/** Every view and download through a link, one row each (what the sender's page counts). */
export const transmittalLinkEvents = pgTable(
  'transmittal_link_events',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    linkId: uuid('link_id').notNull(),
    /** view | file | package | acknowledged | responded */
    kind: text('kind').notNull(),
    revisionId: uuid('revision_id'),
    at: timestamp('at', { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.linkId], foreignColumns: [transmittalLinks.tenantId, transmittalLinks.id] }).onDelete('cascade'),
    index('transmittal_link_events_link_idx').on(t.tenantId, t.linkId, t.at),
    tenantPolicy('transmittal_link_events'),
  ],
).enableRLS()

/**
 * A packaging job: claimed by one instance (SKIP LOCKED), its progress written as it goes, its
 * heartbeat renewed; a job whose heartbeat stopped (its instance died) is claimed again and
 * restarts cleanly from the first file.
 */
export const transmittalPackages = pgTable(
  'transmittal_packages',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    transmittalId: uuid('transmittal_id').notNull(),
    /** queued | running | ready | failed */
    status: text('status').notNull().default('queued'),
    filesTotal: integer('files_total').notNull().default(0),
    filesDone: integer('files_done').notNull().default(0),
    bytesTotal: bigint('bytes_total', { mode: 'number' }).notNull().default(0),
    bytesDone: bigint('bytes_done', { mode: 'number' }).notNull().default(0),
    blobKey: text('blob_key'),
    sizeBytes: bigint('size_bytes', { mode: 'number' }),
    error: text('error'),
    attempts: integer('attempts').notNull().default(0),
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }),
    requestedBy: uuid('requested_by').references(() => users.id, { onDelete: 'set null' }),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.transmittalId], foreignColumns: [transmittals.tenantId, transmittals.id] }).onDelete('cascade'),
    index('transmittal_packages_transmittal_idx').on(t.tenantId, t.transmittalId, t.startedAt),
    index('transmittal_packages_status_idx').on(t.status),
    tenantPolicy('transmittal_packages'),
  ],
).enableRLS()

/** How a project numbers its transmittals (app/lib/doc-control/transmittal-numbering.ts); no row: the default format. */
export const transmittalNumbering = pgTable(
  'transmittal_numbering',
  {
    tenantId: tenantRef(),
    projectId: uuid('project_id').notNull(),
    format: text('format').notNull(),
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    /** Bumped by every save: a save against an older one is refused (issue 36 §4). */
    revision: bigint('revision', { mode: 'number' }).notNull().default(0),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.projectId] }),
    foreignKey({ columns: [t.tenantId, t.projectId], foreignColumns: [projects.tenantId, projects.id] }).onDelete('cascade'),
    tenantPolicy('transmittal_numbering'),
  ],
).enableRLS()

/** Tenant-owned tables of this module; start-up checks each forces row-level security. */
export const docControlTenantTables = [
  'project_parties',
  'party_members',
  'matrix_entries',
  'deliverables',
  'workflow_templates',
  'workflow_template_versions',
  'workflows',
  'workflow_revisions',
  'workflow_tasks',
  'workflow_events',
  'document_sets',
  'document_set_revisions',
  'transmittals',
  'transmittal_revisions',
  'transmittal_recipients',
  'transmittal_packages',
  'party_contacts',
  'transmittal_links',
  'transmittal_link_events',
  'transmittal_numbering',
] as const

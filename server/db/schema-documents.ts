import { sql } from 'drizzle-orm'
import { bigint, boolean, customType, doublePrecision, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { tenantPolicy, tenantRef, timestamps, users } from './schema'
import { projects, reportItems } from './schema-reporting'
import type { MetadataValues, NamingField, PinColours } from '~/lib/documents/types'

/**
 * Controlled documents (issue 11, docs/documents.md): folders per project, documents named by the
 * project's naming standard (ISO 19650 UK annex), their revisions, per-project metadata fields,
 * permissions on project, folder and document, and drawings with item pins. Bytes live in the
 * blob store; rows keep its keys. Every table is tenant-owned, with row-level security.
 */

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' })

/**
 * A folder of a project's document tree. `path` is the ids from the top folder down to this one
 * (itself last): a subtree is `path @> array[id]`, and a move rewrites its descendants' paths in
 * one statement, so the tree never needs a recursive query.
 */
export const documentFolders = pgTable(
  'document_folders',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    projectId: uuid('project_id').notNull(),
    parentId: uuid('parent_id'),
    name: text('name').notNull(),
    path: uuid('path').array().notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    /** Bumped by every rename or move; a save against an older one is refused (issue 36 §4, expectedRevision). */
    revision: bigint('revision', { mode: 'number' }).notNull().default(0),
    /** Who saved last: named in a refused stale save. */
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.projectId], foreignColumns: [projects.tenantId, projects.id] }).onDelete('cascade'),
    // Siblings have different names, whatever their case ("Drawings" and "drawings" are one name).
    uniqueIndex('document_folders_sibling_name_idx').on(t.tenantId, t.projectId, sql`coalesce(${t.parentId}, '00000000-0000-0000-0000-000000000000'::uuid)`, sql`lower(${t.name})`),
    index('document_folders_parent_idx').on(t.tenantId, t.projectId, t.parentId),
    index('document_folders_path_idx').using('gin', t.path),
    tenantPolicy('document_folders'),
  ],
).enableRLS()

/**
 * A controlled document: an information container named by the project's standard. Never deleted
 * (ISO 19650 keeps withdrawn information archived). `searchText` is what search reads: number,
 * title and metadata values, written by the domain with every change; `searchVector` is generated.
 */
/** One renumber as kept on the document: when, who, from and to, why, and how many recipients were told. */
export type RenumberRecord = { at: string; byUserId: string | null; from: string; to: string; reason: string; told: number }

export const documents = pgTable(
  'documents',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    projectId: uuid('project_id').notNull(),
    /** null: at the top of the project's tree. */
    folderId: uuid('folder_id'),
    /** The container name, e.g. SYM01-ARC-Z1-03-DR-A-0001; unique per project (case-insensitive). */
    number: text('number').notNull(),
    title: text('title').notNull(),
    /** The Role field's code (A architect, S structural…): the discipline people filter by. */
    discipline: text('discipline').notNull(),
    /** The Type field's code (DR drawing, SP specification…). */
    docType: text('doc_type').notNull(),
    /** Suitability code of the current revision (S0…S7, A1…, B1…, CR). */
    status: text('status').notNull(),
    /** WIP | Shared | Published | Archived */
    state: text('state').notNull(),
    currentRevisionId: uuid('current_revision_id'),
    metadata: jsonb('metadata').$type<MetadataValues>().notNull().default({}),
    /** Every explicit renumber of a published or sent document (the rule book), oldest first: its history of numbers. */
    renumbers: jsonb('renumbers').$type<RenumberRecord[]>().notNull().default([]),
    searchText: text('search_text').notNull(),
    searchVector: tsvector('search_vector').generatedAlwaysAs(sql`to_tsvector('simple', search_text)`),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    /** Who made the last change: the "Changed by … since you opened it" of a stale save (issue 36 §4). */
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    /** The tenant revision of its last change (change log). */
    revision: bigint('revision', { mode: 'number' }).notNull(),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.projectId], foreignColumns: [projects.tenantId, projects.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.tenantId, t.folderId], foreignColumns: [documentFolders.tenantId, documentFolders.id] }),
    uniqueIndex('documents_project_number_idx').on(t.tenantId, t.projectId, sql`upper(${t.number})`),
    index('documents_folder_idx').on(t.tenantId, t.projectId, t.folderId, t.number),
    index('documents_updated_idx').on(t.tenantId, t.updatedAt.desc(), t.id.desc()),
    // Equality on text is leakproof, so this index serves the discipline and status filter under row-level security.
    index('documents_filter_idx').on(t.tenantId, t.discipline, t.status),
    index('documents_search_vector_idx').using('gin', t.searchVector),
    index('documents_search_trgm_idx').using('gin', sql`${t.searchText} gin_trgm_ops`),
    tenantPolicy('documents'),
  ],
).enableRLS()

/**
 * One issued revision of a document: its revision code (P01…, C01…), the suitability it was issued
 * for, who, when, why, and the file. `version` counts every upload of the document (1, 2, 3…: the
 * audit's version, apart from the code people read). A new revision supersedes the current one,
 * which stays downloadable, marked with when and by which revision.
 */
export const documentRevisions = pgTable(
  'document_revisions',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    documentId: uuid('document_id').notNull(),
    version: integer('version').notNull(),
    code: text('code').notNull(),
    status: text('status').notNull(),
    comment: text('comment'),
    issuedBy: uuid('issued_by').references(() => users.id, { onDelete: 'set null' }),
    fileName: text('file_name').notNull(),
    /** The type read from the bytes (application/octet-stream when it is none we know). */
    contentType: text('content_type').notNull(),
    sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
    sha256: text('sha256').notNull(),
    blobKey: text('blob_key').notNull(),
    /** Sheets (PDF or image): the page's size in points or pixels, and a raster for pins. */
    sheetWidth: integer('sheet_width'),
    sheetHeight: integer('sheet_height'),
    sheetKey: text('sheet_key'),
    supersededAt: timestamp('superseded_at', { withTimezone: true }),
    supersededById: uuid('superseded_by_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.documentId], foreignColumns: [documents.tenantId, documents.id] }).onDelete('cascade'),
    uniqueIndex('document_revisions_version_idx').on(t.tenantId, t.documentId, t.version),
    uniqueIndex('document_revisions_code_idx').on(t.tenantId, t.documentId, t.code),
    tenantPolicy('document_revisions'),
  ],
).enableRLS()

/** The project's naming standard: the container name's fields and their allowed codes. */
export const namingStandards = pgTable(
  'naming_standards',
  {
    tenantId: tenantRef(),
    projectId: uuid('project_id').notNull(),
    fields: jsonb('fields').$type<NamingField[]>().notNull(),
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    /** Bumped by every save: a save against an older one is refused (issue 36 §4). */
    revision: bigint('revision', { mode: 'number' }).notNull().default(0),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.projectId] }),
    foreignKey({ columns: [t.tenantId, t.projectId], foreignColumns: [projects.tenantId, projects.id] }).onDelete('cascade'),
    tenantPolicy('naming_standards'),
  ],
).enableRLS()

/** A custom metadata field of a project's documents, defined by an administrator. */
export const metadataFields = pgTable(
  'metadata_fields',
  {
    tenantId: tenantRef(),
    projectId: uuid('project_id').notNull(),
    /** A stable key: lower-case letters, digits and dashes; values are stored under it. */
    key: text('key').notNull(),
    label: text('label').notNull(),
    /** text | choice | date | number */
    kind: text('kind').notNull(),
    required: boolean('required').notNull().default(false),
    options: text('options')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    position: integer('position').notNull(),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.projectId, t.key] }),
    foreignKey({ columns: [t.tenantId, t.projectId], foreignColumns: [projects.tenantId, projects.id] }).onDelete('cascade'),
    tenantPolicy('metadata_fields'),
  ],
).enableRLS()

/**
 * A permission entry: a member (subject kind user, the user's id) or everyone with an organisation
 * role (subject kind role, the role key) gets a level on a project, folder or document. The nearest
 * entry above a document decides (docs/documents.md "Permissions").
 */
export const documentPermissions = pgTable(
  'document_permissions',
  {
    tenantId: tenantRef(),
    projectId: uuid('project_id').notNull(),
    /** project | folder | document */
    targetKind: text('target_kind').notNull(),
    targetId: uuid('target_id').notNull(),
    /** user | role */
    subjectKind: text('subject_kind').notNull(),
    subject: text('subject').notNull(),
    /** none | view | upload | edit | manage */
    level: text('level').notNull(),
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.targetKind, t.targetId, t.subjectKind, t.subject] }),
    foreignKey({ columns: [t.tenantId, t.projectId], foreignColumns: [projects.tenantId, projects.id] }).onDelete('cascade'),
    index('document_permissions_subject_idx').on(t.tenantId, t.subjectKind, t.subject),
    tenantPolicy('document_permissions'),
  ],
).enableRLS()

/** A drawing sheet used for pinning, with how it is shown (admin drawings overlay). */
export const drawingSheets = pgTable(
  'drawing_sheets',
  {
    tenantId: tenantRef(),
    documentId: uuid('document_id').notNull(),
    projectId: uuid('project_id').notNull(),
    /** Offered for pinning items. */
    pinning: boolean('pinning').notNull().default(true),
    /** As printed in the title block, e.g. "1:100"; free text. */
    scale: text('scale'),
    /** Clockwise rotation in degrees: 0, 90, 180 or 270. */
    rotation: integer('rotation').notNull().default(0),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.documentId] }),
    foreignKey({ columns: [t.tenantId, t.documentId], foreignColumns: [documents.tenantId, documents.id] }).onDelete('cascade'),
    index('drawing_sheets_project_idx').on(t.tenantId, t.projectId),
    tenantPolicy('drawing_sheets'),
  ],
).enableRLS()

/** Pin colours by item status: the organisation's (project_id null) and a project's own. */
export const drawingOverlays = pgTable(
  'drawing_overlays',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    projectId: uuid('project_id'),
    colours: jsonb('colours').$type<PinColours>().notNull(),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('drawing_overlays_scope_idx').on(t.tenantId, sql`coalesce(${t.projectId}, '00000000-0000-0000-0000-000000000000'::uuid)`),
    tenantPolicy('drawing_overlays'),
  ],
).enableRLS()

/**
 * Where a report item sits on a drawing: x and y as fractions of the sheet (0 top-left, 1
 * bottom-right) of the revision it was placed on. When that revision is superseded the pin moves to
 * the new one at the same place, with `needsReview` until someone confirms or moves it.
 */
export const itemPins = pgTable(
  'item_pins',
  {
    tenantId: tenantRef(),
    itemId: uuid('item_id').notNull(),
    documentId: uuid('document_id').notNull(),
    revisionId: uuid('revision_id').notNull(),
    x: doublePrecision('x').notNull(),
    y: doublePrecision('y').notNull(),
    needsReview: boolean('needs_review').notNull().default(false),
    placedBy: uuid('placed_by').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.itemId] }),
    foreignKey({ columns: [t.tenantId, t.itemId], foreignColumns: [reportItems.tenantId, reportItems.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.tenantId, t.documentId], foreignColumns: [documents.tenantId, documents.id] }).onDelete('cascade'),
    index('item_pins_document_idx').on(t.tenantId, t.documentId),
    tenantPolicy('item_pins'),
  ],
).enableRLS()

/** Tenant-owned tables of this module; start-up checks each forces row-level security. */
export const documentTenantTables = [
  'document_folders',
  'documents',
  'document_revisions',
  'naming_standards',
  'metadata_fields',
  'document_permissions',
  'drawing_sheets',
  'drawing_overlays',
  'item_pins',
] as const

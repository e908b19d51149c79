import { sql } from 'drizzle-orm'
import { bigint, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid, foreignKey } from 'drizzle-orm/pg-core'
import { supportTickets } from './schema-admin'
import { documents } from './schema-documents'
import { tenantPolicy, tenantRef, timestamps, users } from './schema'
import { reportItems } from './schema-reporting'

/**
 * Photos on report items (issue 4): resumable upload sessions, the stored photos and their
 * edited versions. The bytes live in the blob store (server/storage); rows keep its keys.
 */

/** One resumable upload (tus / IETF resumable uploads semantics): the offset only moves forward. */
export const uploadSessions = pgTable(
  'upload_sessions',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    /** What completing makes: a photo of `itemId`, or a revision of `documentId` (issue 11). */
    purpose: text('purpose').$type<'photo' | 'revision' | 'support'>().notNull().default('photo'),
    itemId: uuid('item_id'),
    documentId: uuid('document_id'),
    /** The support ticket an attachment is for (purpose `support`, issue 13). */
    supportTicketId: uuid('support_ticket_id'),
    /** A revision's code, suitability and comment, given when its upload starts. */
    revisionInput: jsonb('revision_input').$type<{ code: string; status: string; comment: string | null }>(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    fileName: text('file_name').notNull(),
    declaredType: text('declared_type').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    /** Optional SHA-256 of the whole file, base64 or hex, checked on complete. */
    checksum: text('checksum'),
    chunkSize: integer('chunk_size').notNull(),
    /** Bytes stored so far: the only offset a chunk may start at. */
    offset: bigint('offset', { mode: 'number' }).notNull().default(0),
    /** open | completing | completed | aborted | expired | failed */
    state: text('state').notNull().default('open'),
    /**
     * The chunk writer's lease (one writer per session, across instances): taken by an atomic
     * UPDATE … WHERE free or expired, renewed while the chunk streams, released after.
     */
    leaseToken: uuid('lease_token'),
    leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true }),
    /** The partial file in the blob store's staging area; never served. */
    stagingKey: text('staging_key').notNull(),
    photoId: uuid('photo_id'),
    failureReason: text('failure_reason'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.itemId], foreignColumns: [reportItems.tenantId, reportItems.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.tenantId, t.documentId], foreignColumns: [documents.tenantId, documents.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.tenantId, t.supportTicketId], foreignColumns: [supportTickets.tenantId, supportTickets.id] }).onDelete('cascade'),
    check(
      'upload_sessions_target_check',
      sql`(purpose = 'photo' and item_id is not null) or (purpose = 'revision' and document_id is not null and revision_input is not null) or (purpose = 'support' and support_ticket_id is not null)`,
    ),
    index('upload_sessions_state_expires_idx').on(t.state, t.expiresAt),
    index('upload_sessions_tenant_created_idx').on(t.tenantId, t.createdAt),
    tenantPolicy('upload_sessions'),
  ],
).enableRLS()

export const photos = pgTable(
  'photos',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    itemId: uuid('item_id').notNull(),
    uploadedBy: uuid('uploaded_by').references(() => users.id, { onDelete: 'set null' }),
    /** The name as the client sent it (kept for the original's download). */
    fileName: text('file_name').notNull(),
    /** The name shown: basename only, no control characters, trimmed, length-limited, never empty. */
    displayName: text('display_name').notNull(),
    /** The type read from the bytes, never from the name. */
    contentType: text('content_type').notNull(),
    sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
    width: integer('width'),
    height: integer('height'),
    sha256: text('sha256').notNull(),
    sortOrder: integer('sort_order').notNull().default(0),
    caption: text('caption'),
    /** Blob keys: the original as uploaded (never served as is), and what is served. */
    originalKey: text('original_key').notNull(),
    displayKey: text('display_key'),
    thumbnailKey: text('thumbnail_key'),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    /** Bumped by every save: a save against an older one is refused (issue 36 §4). */
    revision: bigint('revision', { mode: 'number' }).notNull().default(0),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.itemId], foreignColumns: [reportItems.tenantId, reportItems.id] }).onDelete('cascade'),
    index('photos_item_idx').on(t.tenantId, t.itemId, t.sortOrder),
    tenantPolicy('photos'),
  ],
).enableRLS()

/** An edited version of a photo (markup flattened into the image), with its overlay kept for re-editing. */
export const photoEdits = pgTable(
  'photo_edits',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    photoId: uuid('photo_id').notNull(),
    editedBy: uuid('edited_by').references(() => users.id, { onDelete: 'set null' }),
    overlayJson: jsonb('overlay_json').notNull(),
    contentType: text('content_type').notNull(),
    sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
    blobKey: text('blob_key').notNull(),
    displayKey: text('display_key'),
    thumbnailKey: text('thumbnail_key'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId, t.photoId], foreignColumns: [photos.tenantId, photos.id] }).onDelete('cascade'),
    index('photo_edits_photo_idx').on(t.tenantId, t.photoId, t.createdAt),
    tenantPolicy('photo_edits'),
  ],
).enableRLS()

export const photoTenantTables = ['upload_sessions', 'photos', 'photo_edits'] as const

import { z } from 'zod'
import { recordRevision } from './edit-conflict'
import type { SupportAttachment } from '~/lib/admin/support'
import type { Revision } from '~/lib/documents/types'
import { listOf, UserRefSchema } from './reporting-responses'

/**
 * The photo and upload calls' answers (docs/photos.md), as published in /api/openapi.json and
 * checked against the answers (schema incidents, server/http/contract.ts). They mirror
 * server/domain/photos (Photo, UploadSession); objects are not strict, so a field added later is
 * not a mismatch.
 */

const utc = z.iso.datetime().describe('ISO 8601, UTC.')
const bytes = z.number().int().min(0)
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256, in lower-case hex')
/** A URL of the API (a path), with its version as `?v=`. */
const apiUrl = z.string().startsWith('/api/')

export const PhotoEditSchema = z.object({
  id: z.uuid(),
  photoId: z.uuid(),
  /** The markup as the editor saved it. */
  overlayJson: z.unknown(),
  contentType: z.string(),
  sizeBytes: bytes,
  editedBy: UserRefSchema.nullable(),
  createdAtUtc: utc,
  fileUrl: z.string(),
  displayUrl: apiUrl.nullable(),
  thumbnailUrl: apiUrl.nullable(),
}).meta({ id: 'PhotoEdit' })

export const PhotoSchema = z.object({
  id: z.uuid(),
  itemId: z.uuid(),
  fileName: z.string(),
  displayName: z.string().min(1),
  contentType: z.string(),
  sizeBytes: bytes,
  width: z.number().int().min(0).nullable(),
  height: z.number().int().min(0).nullable(),
  sha256,
  sortOrder: z.number().int().min(0),
  caption: z.string().nullable(),
  revision: recordRevision,
  uploadedBy: UserRefSchema.nullable(),
  createdAtUtc: utc,
  updatedAtUtc: utc,
  thumbnailUrl: apiUrl.nullable(),
  displayUrl: apiUrl.nullable(),
  originalUrl: apiUrl.nullable(),
  edit: PhotoEditSchema.nullable(),
}).meta({ id: 'Photo' })

export const PhotoListSchema = listOf(PhotoSchema).meta({ id: 'PhotoList' })

export const UPLOAD_STATES = ['open', 'completing', 'completed', 'aborted', 'expired', 'failed'] as const
export const UPLOAD_PURPOSES = ['photo', 'revision', 'support'] as const

export const UploadSessionSchema = z.object({
  id: z.uuid(),
  purpose: z.enum(UPLOAD_PURPOSES),
  itemId: z.uuid().nullable(),
  documentId: z.uuid().nullable(),
  supportTicketId: z.uuid().nullable(),
  fileName: z.string(),
  contentType: z.string(),
  size: bytes,
  offset: bytes,
  chunkSize: z.number().int().min(1),
  state: z.enum(UPLOAD_STATES),
  photoId: z.uuid().nullable(),
  revisionId: z.uuid().nullable(),
  attachmentId: z.uuid().nullable(),
  failureReason: z.string().nullable(),
  createdAtUtc: utc,
  expiresAtUtc: utc,
  completedAtUtc: utc.nullable(),
}).meta({ id: 'UploadSession' })

/** A new session also tells the largest file the organisation accepts. */
export const NewUploadSessionSchema = UploadSessionSchema.extend({ maxFileBytes: z.number().int().min(1) }).meta({ id: 'NewUploadSession' })

export const RevisionSchema = z.object({
  id: z.uuid(),
  documentId: z.uuid(),
  version: z.number().int().min(1),
  code: z.string(),
  status: z.string(),
  comment: z.string().nullable(),
  issuedBy: UserRefSchema.nullable(),
  issuedAtUtc: utc,
  fileName: z.string(),
  contentType: z.string(),
  sizeBytes: bytes,
  sha256,
  sheet: z.object({ width: z.number().int().min(0), height: z.number().int().min(0) }).nullable(),
  superseded: z.boolean(),
  supersededAtUtc: utc.nullable(),
  supersededBy: z.object({ id: z.uuid(), code: z.string() }).nullable(),
  downloadUrl: apiUrl,
}).meta({ id: 'Revision' }) satisfies z.ZodType<Revision>

export const SupportAttachmentSchema = z.object({
  id: z.uuid(),
  ticketId: z.uuid(),
  fileName: z.string(),
  contentType: z.string(),
  sizeBytes: bytes,
  sha256,
  uploadedBy: UserRefSchema.nullable(),
  createdAtUtc: utc,
  downloadUrl: apiUrl,
}).meta({ id: 'SupportAttachment' }) satisfies z.ZodType<SupportAttachment>

/** What completing an upload made, by the session's purpose: a photo, a document revision or a support attachment. */
export const CompletedUploadSchema = z.union([PhotoSchema, RevisionSchema, SupportAttachmentSchema])

import { randomUUID } from 'node:crypto'
import { and, eq, lt } from 'drizzle-orm'
import { uploadSessions } from '#server/db/schema-photos'
import { Problem, problems, type FieldErrors } from '#server/http/problem'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import { isUuid } from '~/lib/schemas/uuid'

/**
 * An upload session row and what every upload call does with it (docs/photos.md "Upload protocol").
 * A session's `purpose` says what completing it makes: a photo of an item, a revision of a
 * document (docs/documents.md "Revisions"), or an attachment of a support ticket
 * (docs/admin/support.md). Chunks, status and abort are the same for all.
 */

export const CHUNK_BYTES = 8 * 1024 * 1024
export const SESSION_TTL_MS = 24 * 60 * 60_000

export type UploadState = 'open' | 'completing' | 'completed' | 'aborted' | 'expired' | 'failed'
export type UploadPurpose = 'photo' | 'revision' | 'support'

/** What a revision session carries from its start to its complete. */
export type RevisionInput = { code: string; status: string; comment: string | null }

export type UploadSession = {
  id: string
  purpose: UploadPurpose
  /** The item of a photo upload (null for a revision). */
  itemId: string | null
  /** The document of a revision upload (null for a photo). */
  documentId: string | null
  /** The support ticket of an attachment upload (purpose `support`, docs/admin/support.md). */
  supportTicketId: string | null
  fileName: string
  contentType: string
  size: number
  offset: number
  chunkSize: number
  state: UploadState
  photoId: string | null
  /** The revision a completed revision upload issued. */
  revisionId: string | null
  /** The support attachment a completed support upload stored (it takes the session's id). */
  attachmentId: string | null
  failureReason: string | null
  createdAtUtc: string
  expiresAtUtc: string
  completedAtUtc: string | null
}

export type NewUpload = { fileName: string; size: number; contentType: string; checksum?: string | undefined }

export const sessionColumns = {
  id: uploadSessions.id,
  purpose: uploadSessions.purpose,
  itemId: uploadSessions.itemId,
  documentId: uploadSessions.documentId,
  supportTicketId: uploadSessions.supportTicketId,
  revisionInput: uploadSessions.revisionInput,
  userId: uploadSessions.userId,
  fileName: uploadSessions.fileName,
  declaredType: uploadSessions.declaredType,
  size: uploadSessions.size,
  checksum: uploadSessions.checksum,
  chunkSize: uploadSessions.chunkSize,
  offset: uploadSessions.offset,
  state: uploadSessions.state,
  stagingKey: uploadSessions.stagingKey,
  leaseToken: uploadSessions.leaseToken,
  leaseExpiresAt: uploadSessions.leaseExpiresAt,
  photoId: uploadSessions.photoId,
  failureReason: uploadSessions.failureReason,
  expiresAt: uploadSessions.expiresAt,
  completedAt: uploadSessions.completedAt,
  createdAt: uploadSessions.createdAt,
}
export type SessionRow = {
  id: string
  purpose: UploadPurpose
  itemId: string | null
  documentId: string | null
  supportTicketId: string | null
  revisionInput: RevisionInput | null
  userId: string | null
  fileName: string
  declaredType: string
  size: number
  checksum: string | null
  chunkSize: number
  offset: number
  state: string
  stagingKey: string
  leaseToken: string | null
  leaseExpiresAt: Date | null
  photoId: string | null
  failureReason: string | null
  expiresAt: Date
  completedAt: Date | null
  createdAt: Date
}

export function isExpired(row: SessionRow, now: Date): boolean {
  return (row.state === 'open' || row.state === 'completing') && row.expiresAt.getTime() <= now.getTime()
}

export function toSession(row: SessionRow, now: Date): UploadSession {
  return {
    id: row.id,
    purpose: row.purpose,
    itemId: row.itemId,
    documentId: row.documentId,
    supportTicketId: row.supportTicketId,
    fileName: row.fileName,
    contentType: row.declaredType,
    size: row.size,
    offset: row.offset,
    chunkSize: row.chunkSize,
    state: (isExpired(row, now) ? 'expired' : row.state) as UploadState,
    photoId: row.photoId,
    // A revision takes its session's id (server/domain/documents/revision-complete.ts).
    revisionId: row.purpose === 'revision' && row.state === 'completed' ? row.id : null,
    // So does a support attachment (server/domain/admin/support-attachments.ts).
    attachmentId: row.purpose === 'support' && row.state === 'completed' ? row.id : null,
    failureReason: row.failureReason,
    createdAtUtc: row.createdAt.toISOString(),
    expiresAtUtc: row.expiresAt.toISOString(),
    completedAtUtc: row.completedAt?.toISOString() ?? null,
  }
}

const HEX = /^[0-9a-f]{64}$/i
const BASE64 = /^[A-Za-z0-9+/_-]{43}=?$/

/** A SHA-256 as 64 hex digits or base64(url), optionally prefixed `sha256:` or `sha-256=`: lower-case hex. */
export function normaliseChecksum(value: string): string | undefined {
  const bare = value.trim().replace(/^sha-?256[:=]/i, '')
  if (HEX.test(bare)) return bare.toLowerCase()
  if (BASE64.test(bare)) {
    const bytes = Buffer.from(bare.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
    return bytes.length === 32 ? bytes.toString('hex') : undefined
  }
  return undefined
}

/** The checks of a new session's own fields, as field errors (the caller adds its own), and the checksum as stored. */
export function checkNewUpload(input: NewUpload): { checksum: string | undefined; errors: FieldErrors } {
  const errors: FieldErrors = {}
  const checksum = input.checksum === undefined ? undefined : normaliseChecksum(input.checksum)
  if (input.checksum !== undefined && checksum === undefined) errors.checksum = ['The checksum must be a SHA-256, as 64 hex digits or base64.']
  // Kept as sent, but PostgreSQL text cannot hold NUL.
  if (input.fileName.includes('\u0000')) errors.fileName = ['The file name may not contain NUL characters.']
  return { checksum, errors }
}

/** What a session makes when completed: a photo of an item, a revision of a document, or an attachment of a support ticket. */
export type UploadTarget =
  { purpose: 'photo'; itemId: string } | { purpose: 'revision'; documentId: string; revisionInput: RevisionInput } | { purpose: 'support'; supportTicketId: string }

/** Stores a new open session, its bytes to come in its own staging key; checks and quota are the caller's. */
export async function insertSession(ctx: DomainContext, target: UploadTarget, input: NewUpload, checksum: string | undefined): Promise<UploadSession> {
  const id = randomUUID()
  const [row] = await ctx.tx
    .insert(uploadSessions)
    .values({
      tenantId: ctx.actor.tenantId,
      id,
      ...target,
      userId: ctx.actor.userId,
      fileName: input.fileName,
      declaredType: input.contentType,
      size: input.size,
      checksum: checksum ?? null,
      chunkSize: CHUNK_BYTES,
      stagingKey: `staging/${ctx.actor.tenantId}/upload-${id}`,
      expiresAt: new Date(ctx.now.getTime() + SESSION_TTL_MS),
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
    .returning(sessionColumns)
  if (!row) throw new Error('upload session not stored')
  // Announced, so the admin uploads page follows live (issue 13); sync steps over it.
  await recordChange(ctx, 'UploadSession', id, 'Created')
  return toSession(row, ctx.now)
}

export function uploadProblem(status: number, title: string, detail: string, code: string, extensions?: Record<string, unknown>): Problem {
  return new Problem({ status, title, detail, code, extensions })
}

const notFound = () => new Problem(problems.notFound('The upload session was not found.'))

/** The actor's own session (another member's, or another tenant's, reads as 404). */
export async function findSession(ctx: DomainContext, id: string, options: { lock?: boolean } = {}): Promise<SessionRow> {
  if (!isUuid(id)) throw notFound()
  const query = ctx.tx
    .select(sessionColumns)
    .from(uploadSessions)
    .where(and(eq(uploadSessions.tenantId, ctx.actor.tenantId), eq(uploadSessions.id, id), eq(uploadSessions.userId, ctx.actor.userId)))
    .limit(1)
  const [row] = options.lock ? await query.for('update') : await query
  if (!row) throw notFound()
  return row
}

export function ensureOpen(row: SessionRow, now: Date): void {
  if (isExpired(row, now) || row.state === 'expired') {
    throw uploadProblem(410, 'Upload expired', 'The upload session has expired; start a new one.', 'KR_UPLOAD_EXPIRED', { expiresAtUtc: row.expiresAt.toISOString() })
  }
  if (row.state !== 'open') {
    throw uploadProblem(409, 'Conflict', `The upload session is ${row.state}: it takes no more chunks.`, 'KR_UPLOAD_STATE', { state: row.state })
  }
}

export function offsetMismatch(expected: number): Problem {
  return uploadProblem(409, 'Conflict', `The next chunk must start at offset ${expected}.`, 'KR_UPLOAD_OFFSET_MISMATCH', { expectedOffset: expected })
}

/** Moves the stored offset forward to what the staging blob really holds (never back). */
export async function recordOffset(ctx: DomainContext, id: string, stored: number): Promise<void> {
  await ctx.tx
    .update(uploadSessions)
    .set({ offset: stored, updatedAt: ctx.now })
    .where(and(eq(uploadSessions.tenantId, ctx.actor.tenantId), eq(uploadSessions.id, id), lt(uploadSessions.offset, stored)))
}

/** Another chunk is streaming (the session's lease is held). */
export function busy(expectedOffset: number): Problem {
  return uploadProblem(409, 'Conflict', 'Another chunk of this upload is being received.', 'KR_UPLOAD_BUSY', { expectedOffset })
}

export function leaseHeld(row: { leaseToken: string | null; leaseExpiresAt: Date | null }, now: Date): boolean {
  return row.leaseToken !== null && row.leaseExpiresAt !== null && row.leaseExpiresAt.getTime() > now.getTime()
}

import { and, eq, lt } from 'drizzle-orm'
import { uploadSessions } from '#server/db/schema-photos'
import { Problem, problems } from '#server/http/problem'
import type { DomainContext } from '../reporting/context'
import { isUuid } from '../reporting/item-view'

/** An upload session row and what every upload call does with it (docs/photos.md "Upload protocol"). */

export const CHUNK_BYTES = 8 * 1024 * 1024
export const SESSION_TTL_MS = 24 * 60 * 60_000

export type UploadState = 'open' | 'completing' | 'completed' | 'aborted' | 'expired' | 'failed'

export type UploadSession = {
  id: string
  itemId: string
  fileName: string
  contentType: string
  size: number
  offset: number
  chunkSize: number
  state: UploadState
  photoId: string | null
  failureReason: string | null
  createdAtUtc: string
  expiresAtUtc: string
  completedAtUtc: string | null
}

export type NewUpload = { fileName: string; size: number; contentType: string; checksum?: string | undefined }

export const sessionColumns = {
  id: uploadSessions.id,
  itemId: uploadSessions.itemId,
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
  itemId: string
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
    itemId: row.itemId,
    fileName: row.fileName,
    contentType: row.declaredType,
    size: row.size,
    offset: row.offset,
    chunkSize: row.chunkSize,
    state: (isExpired(row, now) ? 'expired' : row.state) as UploadState,
    photoId: row.photoId,
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

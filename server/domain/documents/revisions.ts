import { and, eq } from 'drizzle-orm'
import { documentRevisions } from '#server/db/schema-documents'
import { Problem, problems, type FieldErrors } from '#server/http/problem'
import { shaOfKey } from '../photos/photos'
import { ensureQuota } from '../uploads/quota'
import type { ServedBlob } from '../uploads/served'
import { checkNewUpload, insertSession, type NewUpload, type UploadSession } from '../uploads/session'
import { ensureNotUnderReview } from './review-lock'
import type { DomainContext } from '../tenancy/context'
import { isUuid } from '~/lib/schemas/uuid'
import { requireLevel } from './access'
import { findDocument, notFound, type DocumentRow } from './places'
import { archivedProblem, MAX_REVISION_BYTES, revisionFieldErrors, revisionHistoryOf, revisionTooLarge } from './revision-rules'
import { servedInline } from './revision-type'
import { revisionColumns } from './views'
// Revision sessions are completed by this finisher (server/domain/uploads/engine.ts): it registers with the engine.
import './revision-complete'

/**
 * Document revisions (docs/documents.md "Revisions"), uploaded through the one resumable upload
 * (docs/photos.md): a revision session is an upload session whose purpose is `revision`; chunks,
 * status, abort and complete are the photos' calls. This module starts such a session, after
 * every check that needs no byte (the right to upload, the document not archived, the code and
 * status, the size and the quota), and says which blob a revision's URLs serve. What complete
 * makes: revision-complete.ts; the one-request form: revision-direct.ts.
 */

export { MAX_REVISION_BYTES } from './revision-rules'

export type NewRevisionUpload = NewUpload & { code: string; status: string; comment?: string | null | undefined }

function invalidRevision(errors: FieldErrors): Problem {
  return new Problem({ ...problems.badRequest('The revision has problems: see each field.', errors), code: 'KR_REVISION_INVALID' })
}

/** Upload on the document, which is not archived; and the problems of the code and status, when given. */
async function startChecks(ctx: DomainContext, documentId: string, fields?: Pick<NewRevisionUpload, 'code' | 'status'>): Promise<{ doc: DocumentRow; errors: FieldErrors }> {
  const { doc, level } = await findDocument(ctx, documentId)
  requireLevel(level, 'upload')
  if (doc.state === 'Archived') throw archivedProblem()
  await ensureNotUnderReview(ctx, doc.id)
  return { doc, errors: fields ? revisionFieldErrors(fields.code, fields.status, await revisionHistoryOf(ctx, doc)) : {} }
}

/** The checks of a new revision that need no file (the one-request form runs them before reading the file). */
export async function checkRevisionStart(ctx: DomainContext, documentId: string, fields?: Pick<NewRevisionUpload, 'code' | 'status'>): Promise<void> {
  const { errors } = await startChecks(ctx, documentId, fields)
  if (Object.keys(errors).length > 0) throw invalidRevision(errors)
}

/** POST /api/documents/{id}/uploads: a revision's upload session. Upload on the document. */
export async function createRevisionUpload(ctx: DomainContext, documentId: string, input: NewRevisionUpload): Promise<UploadSession> {
  const { doc, errors } = await startChecks(ctx, documentId, input)
  const { checksum, errors: own } = checkNewUpload(input)
  Object.assign(errors, own)
  if (Object.keys(errors).length > 0) throw invalidRevision(errors)
  if (input.size > MAX_REVISION_BYTES) throw revisionTooLarge(input.size)
  await ensureQuota(ctx, input.size)
  const comment = input.comment?.trim() ? input.comment.trim() : null
  return insertSession(ctx, { purpose: 'revision', documentId: doc.id, revisionInput: { code: input.code, status: input.status, comment } }, input, checksum)
}

export type RevisionVariant = 'file' | 'sheet'

export type ServedRevisionBlob = ServedBlob & { disposition: 'inline' | 'attachment' }

/** The sheet's file name: the revision's, its extension replaced by `.png`. */
function sheetFileName(fileName: string): string {
  const base = fileName.replace(/\.[^./\\]{1,10}$/, '')
  return `${base || 'sheet'}-sheet.png`
}

/**
 * GET /api/revisions/{id}/file and /sheet: which blob to serve. View on the document (below it,
 * and for another organisation's id, 404). Superseded revisions stay downloadable.
 */
export async function revisionBlob(ctx: DomainContext, revisionId: string, variant: RevisionVariant): Promise<ServedRevisionBlob> {
  if (!isUuid(revisionId)) throw notFound()
  const [row] = await ctx.tx
    .select(revisionColumns)
    .from(documentRevisions)
    .where(and(eq(documentRevisions.tenantId, ctx.actor.tenantId), eq(documentRevisions.id, revisionId)))
    .limit(1)
  if (!row) throw notFound()
  await findDocument(ctx, row.documentId)
  if (variant === 'sheet') {
    if (!row.sheetKey) throw new Problem(problems.notFound('This revision has no sheet: it is not an image or a PDF, or it could not be drawn.'))
    return { key: row.sheetKey, contentType: 'image/png', sha256: shaOfKey(row.sheetKey), fileName: sheetFileName(row.fileName), disposition: 'inline' }
  }
  return { key: row.blobKey, contentType: row.contentType, sha256: row.sha256, fileName: row.fileName, disposition: servedInline(row.contentType) ? 'inline' : 'attachment' }
}

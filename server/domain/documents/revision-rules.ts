import { and, eq } from 'drizzle-orm'
import { documentRevisions } from '#server/db/schema-documents'
import { Problem, type FieldErrors } from '#server/http/problem'
import { nextRevisionCode } from '~/lib/documents/rules'
import { issueProblems } from './rule-book'
import type { DomainContext } from '../tenancy/context'
import type { DocumentRow } from './places'

/**
 * What starting and completing a revision upload both check (docs/documents.md "Revisions"): the
 * code against the status and the document's current revision, the file size limit, and that
 * the document is not archived. Also where a revision's blobs are kept.
 */

/** A revision's file may be any type, up to 1 GiB (models and scanned drawing sets are large). */
export const MAX_REVISION_BYTES = 1024 * 1024 * 1024

/** `{tenantId}/revisions/{revisionId}/{name}.{sha256}`: the file and its sheet raster, ending in their hashes. */
export function revisionKey(tenantId: string, revisionId: string, name: 'file' | 'sheet-png', sha256: string): string {
  return `${tenantId}/revisions/${revisionId}/${name}.${sha256}`
}

/** What a new revision's code is checked against: the current revision's code (null before the first) and every code the document has had. */
export type RevisionHistory = { current: string | null; codes: string[] }

export async function revisionHistoryOf(ctx: DomainContext, doc: Pick<DocumentRow, 'id' | 'currentRevisionId'>): Promise<RevisionHistory> {
  if (!doc.currentRevisionId) return { current: null, codes: [] }
  const rows = await ctx.tx
    .select({ id: documentRevisions.id, code: documentRevisions.code })
    .from(documentRevisions)
    .where(and(eq(documentRevisions.tenantId, ctx.actor.tenantId), eq(documentRevisions.documentId, doc.id)))
  return { current: rows.find((r) => r.id === doc.currentRevisionId)?.code ?? null, codes: rows.map((r) => r.code) }
}

/** Every problem of a new revision's code and status at once, as field errors (empty when it may be issued): the rule book's. */
export function revisionFieldErrors(code: string, status: string, history: RevisionHistory): FieldErrors {
  return issueProblems(code, status, history.current, history.codes)
}

/**
 * Another revision was issued between this upload's start and its complete, and this code no
 * longer comes after the current one: `expectedCode` is what would.
 */
export function revisionConflict(problems: string[], history: RevisionHistory, status: string): Problem {
  const currentCode = history.current
  const expectedCode = nextRevisionCode(currentCode, status, history.codes)
  return new Problem({
    status: 409,
    title: 'Conflict',
    detail: `Revision ${currentCode ?? '(another)'} was issued while this file was uploading: upload it again as ${expectedCode}.`,
    code: 'KR_REVISION_CONFLICT',
    remediation: `Upload the file again with revision code ${expectedCode}.`,
    errors: { code: problems },
    extensions: { currentCode, expectedCode },
  })
}

export function archivedProblem(): Problem {
  return new Problem({ status: 409, title: 'Conflict', detail: 'This document is archived: bring it back before issuing a revision.', code: 'KR_ARCHIVED' })
}

export function revisionTooLarge(size: number): Problem {
  return new Problem({
    status: 413,
    title: 'File too large',
    detail: `A revision's file may be at most ${MAX_REVISION_BYTES / (1024 * 1024 * 1024)} GiB.`,
    code: 'KR_UPLOAD_TOO_LARGE',
    remediation: 'Split the file, or compress it, and upload again.',
    extensions: { maxBytes: MAX_REVISION_BYTES, sizeBytes: size },
  })
}

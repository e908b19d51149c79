import { and, desc, eq, inArray } from 'drizzle-orm'
import { documentRevisions } from '#server/db/schema-documents'
import type { CdeState, DocumentSummary, Revision } from '~/lib/documents/types'
import type { DomainContext } from '../tenancy/context'
import { refOf, userRefs } from '../tenancy/user-refs'
import type { DocumentRow } from './places'

/** The JSON of documents and revisions, made in a fixed number of queries for any number of rows. */

export const revisionColumns = {
  id: documentRevisions.id,
  documentId: documentRevisions.documentId,
  version: documentRevisions.version,
  code: documentRevisions.code,
  status: documentRevisions.status,
  comment: documentRevisions.comment,
  issuedBy: documentRevisions.issuedBy,
  fileName: documentRevisions.fileName,
  contentType: documentRevisions.contentType,
  sizeBytes: documentRevisions.sizeBytes,
  sha256: documentRevisions.sha256,
  blobKey: documentRevisions.blobKey,
  sheetWidth: documentRevisions.sheetWidth,
  sheetHeight: documentRevisions.sheetHeight,
  sheetKey: documentRevisions.sheetKey,
  supersededAt: documentRevisions.supersededAt,
  supersededById: documentRevisions.supersededById,
  createdAt: documentRevisions.createdAt,
}

export type RevisionRow = {
  id: string
  documentId: string
  version: number
  code: string
  status: string
  comment: string | null
  issuedBy: string | null
  fileName: string
  contentType: string
  sizeBytes: number
  sha256: string
  blobKey: string
  sheetWidth: number | null
  sheetHeight: number | null
  sheetKey: string | null
  supersededAt: Date | null
  supersededById: string | null
  createdAt: Date
}

export function downloadUrl(revisionId: string): string {
  return `/api/revisions/${revisionId}/file`
}

/** A document's revisions, newest first. */
export async function revisionsOf(ctx: DomainContext, documentId: string): Promise<Revision[]> {
  const rows = await ctx.tx
    .select(revisionColumns)
    .from(documentRevisions)
    .where(and(eq(documentRevisions.tenantId, ctx.actor.tenantId), eq(documentRevisions.documentId, documentId)))
    .orderBy(desc(documentRevisions.version))
  return revisionViews(ctx, rows)
}

export async function revisionViews(ctx: DomainContext, rows: RevisionRow[]): Promise<Revision[]> {
  const refs = await userRefs(
    ctx,
    rows.map((r) => r.issuedBy),
  )
  const codes = new Map(rows.map((r) => [r.id, r.code]))
  const missing = rows.flatMap((r) => (r.supersededById && !codes.has(r.supersededById) ? [r.supersededById] : []))
  if (missing.length > 0) {
    const found = await ctx.tx
      .select({ id: documentRevisions.id, code: documentRevisions.code })
      .from(documentRevisions)
      .where(and(eq(documentRevisions.tenantId, ctx.actor.tenantId), inArray(documentRevisions.id, missing)))
    for (const f of found) codes.set(f.id, f.code)
  }
  return rows.map((row) => ({
    id: row.id,
    documentId: row.documentId,
    version: row.version,
    code: row.code,
    status: row.status,
    comment: row.comment,
    issuedBy: refOf(refs, row.issuedBy),
    issuedAtUtc: row.createdAt.toISOString(),
    fileName: row.fileName,
    contentType: row.contentType,
    sizeBytes: Number(row.sizeBytes),
    sha256: row.sha256,
    sheet: row.sheetKey && row.sheetWidth && row.sheetHeight ? { width: row.sheetWidth, height: row.sheetHeight } : null,
    superseded: row.supersededAt !== null,
    supersededAtUtc: row.supersededAt?.toISOString() ?? null,
    supersededBy: row.supersededById ? { id: row.supersededById, code: codes.get(row.supersededById) ?? '' } : null,
    downloadUrl: downloadUrl(row.id),
  }))
}

type SummaryRow = Pick<DocumentRow, 'id' | 'projectId' | 'folderId' | 'number' | 'title' | 'discipline' | 'docType' | 'status' | 'state' | 'currentRevisionId' | 'updatedAt'>

/** List rows of documents, with each current revision's code (one query for them all). */
export async function documentSummaries(ctx: DomainContext, rows: SummaryRow[]): Promise<DocumentSummary[]> {
  const currentIds = rows.flatMap((r) => (r.currentRevisionId ? [r.currentRevisionId] : []))
  const current = new Map<string, { id: string; code: string; status: string; issuedAtUtc: string }>()
  if (currentIds.length > 0) {
    const found = await ctx.tx
      .select({ id: documentRevisions.id, code: documentRevisions.code, status: documentRevisions.status, createdAt: documentRevisions.createdAt })
      .from(documentRevisions)
      .where(and(eq(documentRevisions.tenantId, ctx.actor.tenantId), inArray(documentRevisions.id, currentIds)))
    for (const f of found) current.set(f.id, { id: f.id, code: f.code, status: f.status, issuedAtUtc: f.createdAt.toISOString() })
  }
  return rows.map((row) => ({
    id: row.id,
    projectId: row.projectId,
    folderId: row.folderId,
    number: row.number,
    title: row.title,
    discipline: row.discipline,
    docType: row.docType,
    status: row.status,
    state: row.state as CdeState,
    currentRevision: row.currentRevisionId ? (current.get(row.currentRevisionId) ?? null) : null,
    updatedAtUtc: row.updatedAt.toISOString(),
  }))
}

import { and, eq, inArray } from 'drizzle-orm'
import { documentFolders, documentRevisions, documents } from '#server/db/schema-documents'
import { users } from '#server/db/schema'
import { actorEntries, decide, requireLevel } from '#server/domain/documents/access'
import { notFound } from '#server/domain/documents/places'
import type { DomainContext } from '#server/domain/reporting/context'
import { Problem } from '#server/http/problem'
import type { PermissionLevel } from '~/lib/documents/types'
import type { WorkflowRevision } from '~/lib/doc-control/types'

/**
 * The revisions a workflow, a set or a transmittal is about, read once for all three: each one of
 * the project, at most one per document, and the caller at `wanted` or above on its document (the
 * one permission rule, server/domain/documents/access.ts). A revision the caller cannot see, of
 * another project or another tenant, is 404 like any unknown id; one the caller sees but may not
 * act on is 403. Answered in the order asked.
 */
export async function revisionsFor(ctx: DomainContext, projectId: string, revisionIds: readonly string[], wanted: PermissionLevel): Promise<WorkflowRevision[]> {
  if (revisionIds.length === 0) return []
  const rows = await ctx.tx
    .select({
      revisionId: documentRevisions.id,
      documentId: documents.id,
      projectId: documents.projectId,
      number: documents.number,
      title: documents.title,
      code: documentRevisions.code,
      status: documentRevisions.status,
      documentState: documents.state,
      currentRevisionId: documents.currentRevisionId,
      supersededAt: documentRevisions.supersededAt,
      folderPath: documentFolders.path,
    })
    .from(documentRevisions)
    .innerJoin(documents, and(eq(documents.tenantId, documentRevisions.tenantId), eq(documents.id, documentRevisions.documentId)))
    .leftJoin(documentFolders, and(eq(documentFolders.tenantId, documents.tenantId), eq(documentFolders.id, documents.folderId)))
    .where(and(eq(documentRevisions.tenantId, ctx.actor.tenantId), inArray(documentRevisions.id, [...revisionIds])))
  const byId = new Map(rows.map((row) => [row.revisionId, row]))
  const entries = await actorEntries(ctx, projectId)
  const seenDocuments = new Set<string>()
  const answer: WorkflowRevision[] = []
  for (const id of revisionIds) {
    const row = byId.get(id)
    if (!row || row.projectId !== projectId) throw notFound()
    const level = decide(ctx.actor, entries, { projectId, folderPath: row.folderPath ?? [], documentId: row.documentId })
    requireLevel(level, 'view')
    requireLevel(level, wanted)
    if (seenDocuments.has(row.documentId)) {
      throw new Problem({ status: 422, title: 'Invalid request', detail: `${row.number} is listed twice: choose one revision of each document.`, code: 'KR_VALIDATION' })
    }
    seenDocuments.add(row.documentId)
    answer.push({ revisionId: row.revisionId, documentId: row.documentId, number: row.number, title: row.title, code: row.code, status: row.status, state: stateOfRow(row) })
  }
  return answer
}

/** A superseded revision reads Archived whatever its code; the current one reads its document's state. */
export function stateOfRow(row: { currentRevisionId: string | null; revisionId: string; documentState: string; supersededAt: Date | null }): string {
  if (row.supersededAt) return 'Archived'
  return row.currentRevisionId === row.revisionId ? row.documentState : 'Shared'
}

/** Display names of users by id (one query), for the shapes that name people. */
export async function peopleById(ctx: DomainContext, ids: ReadonlyArray<string | null>): Promise<Map<string, { id: string; displayName: string; email: string }>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))]
  if (wanted.length === 0) return new Map()
  const rows = await ctx.tx.select({ id: users.id, displayName: users.displayName, email: users.email }).from(users).where(inArray(users.id, wanted))
  return new Map(rows.map((row) => [row.id, row]))
}

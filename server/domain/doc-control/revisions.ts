import { and, eq, inArray } from 'drizzle-orm'
import { documentFolders, documentRevisions, documents } from '#server/db/schema-documents'
import { users } from '#server/db/schema'
import { actorEntries, decide, requireLevel } from '#server/domain/documents/access'
import { notFound } from '#server/domain/documents/places'
import type { DomainContext } from '#server/domain/tenancy/context'
import { Problem } from '#server/http/problem'
import { atLeast } from '~/lib/documents/rules'
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
  const byId = await revisionViews(ctx, revisionIds)
  const entries = await actorEntries(ctx, projectId)
  const seenDocuments = new Set<string>()
  const answer: WorkflowRevision[] = []
  for (const id of revisionIds) {
    const view = byId.get(id)
    if (!view || view.projectId !== projectId) throw notFound()
    const level = decide(ctx.actor, entries, { projectId, folderPath: view.folderPath, documentId: view.documentId })
    requireLevel(level, 'view')
    requireLevel(level, wanted)
    if (seenDocuments.has(view.documentId)) {
      throw new Problem({ status: 422, title: 'Invalid request', detail: `${view.number} is listed twice: choose one revision of each document.`, code: 'KR_VALIDATION' })
    }
    seenDocuments.add(view.documentId)
    answer.push(shown(view))
  }
  return answer
}

/**
 * Reading the revisions a set or transmittal already holds, to show them. Choosing revisions (and
 * every change) goes through `revisionsFor` above, which applies the permission rule and refuses;
 * reading does not refuse: a set shows the revisions the caller may view (`visibleRevisions`, the
 * same rule), and a transmittal shows its recipients everything it sent them.
 */
export type RevisionView = WorkflowRevision & { projectId: string; folderPath: string[] }

/** The revisions by id, whatever the caller's level (one query). */
export async function revisionViews(ctx: DomainContext, revisionIds: readonly string[]): Promise<Map<string, RevisionView>> {
  const wanted = [...new Set(revisionIds)]
  if (wanted.length === 0) return new Map()
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
    .where(and(eq(documentRevisions.tenantId, ctx.actor.tenantId), inArray(documentRevisions.id, wanted)))
  return new Map(
    rows.map((row) => [
      row.revisionId,
      {
        revisionId: row.revisionId,
        documentId: row.documentId,
        number: row.number,
        title: row.title,
        code: row.code,
        status: row.status,
        state: stateOfRow(row),
        projectId: row.projectId,
        folderPath: row.folderPath ?? [],
      },
    ]),
  )
}

/** Those of `views` (all of one project) the caller may view, by the one permission rule. */
export async function visibleRevisions(ctx: DomainContext, projectId: string, views: readonly RevisionView[]): Promise<RevisionView[]> {
  if (ctx.actor.roleKey === 'admin' || views.length === 0) return [...views]
  const entries = await actorEntries(ctx, projectId)
  return views.filter((v) => v.projectId === projectId && atLeast(decide(ctx.actor, entries, { projectId, folderPath: v.folderPath, documentId: v.documentId }), 'view'))
}

/** A view without its placing, as the API answers it. */
export function shown(view: RevisionView): WorkflowRevision {
  const { projectId: _projectId, folderPath: _folderPath, ...revision } = view
  return revision
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

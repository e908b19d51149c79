import { and, eq, inArray } from 'drizzle-orm'
import { documentFolders, documentRevisions, documents } from '#server/db/schema-documents'
import { actorEntries, decide } from '#server/domain/documents/access'
import type { DomainContext } from '#server/domain/reporting/context'
import { atLeast } from '~/lib/documents/rules'
import type { WorkflowRevision } from '~/lib/doc-control/types'
import { stateOfRow } from './revisions'

/**
 * Reading the revisions a set or transmittal already holds, to show them. Choosing revisions (and
 * every change) goes through `revisionsFor` (./revisions.ts), which applies the permission rule
 * and refuses; reading does not refuse: a set shows the revisions the caller may view
 * (`visibleRevisions`, the same rule), and a transmittal shows its recipients everything it sent them.
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

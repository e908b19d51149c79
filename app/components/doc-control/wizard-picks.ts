import type { WorkflowRevision } from '~/lib/doc-control/types'
import { isUuid } from '../../lib/schemas/uuid'

export type RevisionPick = { documentId: string; revisionId: string }

/** The picker's checked boxes (`documentId.revisionId`), malformed ones left out. */
export function picksOf(formData: FormData, field = 'pick'): RevisionPick[] {
  const picks: RevisionPick[] = []
  for (const value of formData.getAll(field)) {
    if (typeof value !== 'string') continue
    const [documentId, revisionId, ...rest] = value.split('.')
    if (rest.length === 0 && isUuid(documentId) && isUuid(revisionId)) picks.push({ documentId, revisionId })
  }
  return picks
}

/**
 * The revision ids after adding `picks` to what is chosen now: one revision per document (a set and
 * a transmittal hold one), so a pick replaces another revision of its document, in its place; new
 * documents go at the end.
 */
export function withPicks(current: readonly RevisionPick[], picks: readonly RevisionPick[]): string[] {
  const byDocument = new Map<string, string>()
  for (const revision of current) byDocument.set(revision.documentId, revision.revisionId)
  for (const pick of picks) byDocument.set(pick.documentId, pick.revisionId)
  return [...byDocument.values()]
}

export function withoutRevision(current: readonly WorkflowRevision[], revisionId: string): string[] {
  return current.filter((revision) => revision.revisionId !== revisionId).map((revision) => revision.revisionId)
}

/** documentId → revisionId, for the picker to mark what is chosen. */
export function chosenMap(revisions: readonly WorkflowRevision[]): Map<string, string> {
  return new Map(revisions.map((revision) => [revision.documentId, revision.revisionId]))
}

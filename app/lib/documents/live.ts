import type { EntityChanged } from '~/lib/realtime/events'

/**
 * Which realtime changes the document screens show (EntityChanged, docs/realtime.md): the change
 * log announces folders as `DocumentFolder` and documents, their revisions and metadata as
 * `Document` (docs/documents.md "Model").
 */
export const DOCUMENT_ENTITY_TYPES: ReadonlySet<string> = new Set(['Document', 'DocumentFolder'])

/** /documents: any folder or document of the organisation (the tree, the list and its counts). */
export function documentsChanged(change: EntityChanged): boolean {
  return DOCUMENT_ENTITY_TYPES.has(change.entityType)
}

/** A document's page: the document itself, or a folder (its breadcrumbs and the folder choices). */
export function documentChanged(documentId: string): (change: EntityChanged) => boolean {
  return (change) => change.entityType === 'DocumentFolder' || (change.entityType === 'Document' && change.entityId === documentId)
}

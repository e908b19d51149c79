/**
 * Where an upload goes (docs/photos.md "Upload protocol", docs/documents.md "Revisions"): apart from
 * the calls in upload-api.ts, so a screen that only names a target (the document pages' resumable
 * forms) does not load the protocol's client with its first scripts.
 */

export type UploadKind = 'photo' | 'revision'

/**
 * Where an upload goes: what the call that starts its session needs (upload-api.ts makes that call
 * through the typed client), by kind.
 */
export type UploadTarget =
  | { readonly kind: 'photo'; readonly itemId: string }
  | { readonly kind: 'revision'; readonly documentId: string; readonly revision: { readonly code: string; readonly status: string; readonly comment?: string } }

/** Photos of a report item (docs/photos.md). */
export function photoTarget(itemId: string): UploadTarget {
  return { kind: 'photo', itemId }
}

/** A new revision of a document (docs/documents.md "Revisions"): its code and status are checked before any byte is sent. */
export function revisionTarget(documentId: string, revision: { code: string; status: string; comment?: string | null | undefined }): UploadTarget {
  return { kind: 'revision', documentId, revision: { code: revision.code, status: revision.status, ...(revision.comment ? { comment: revision.comment } : {}) } }
}

/** An item id stands for the photo target of that item (field mode's outbox keeps item ids). */
export function targetOf(target: UploadTarget | string): UploadTarget {
  return typeof target === 'string' ? photoTarget(target) : target
}

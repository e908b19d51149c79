import type { ApiClient, ApiError, ProblemDetails } from '~/lib/api/types'

/**
 * The calls of docs/photos.md "Upload protocol" that the island makes. One protocol for every
 * file: what completing a session makes (a photo of an item, a revision of a document) is chosen
 * when it starts, by the upload's target (docs/documents.md "Revisions").
 */

export type SessionState = 'open' | 'completing' | 'completed' | 'aborted' | 'expired' | 'failed'

export type UploadSessionInfo = {
  id: string
  offset: number
  size: number
  chunkSize: number
  state: SessionState
  /** What the completed session made: a photo's id, or a revision's. */
  photoId: string | null
  revisionId?: string | null
  failureReason: string | null
}

/** What completing a session answers: the photo, or the revision; the id is all the island keeps. */
export type UploadedFile = { id: string }

export type UploadKind = 'photo' | 'revision'

/** Where an upload goes: the call that starts its session, and the JSON fields that call takes besides the file's. */
export type UploadTarget = {
  kind: UploadKind
  startPath: string
  fields: Readonly<Record<string, string | number | null>>
}

/** Photos of a report item (docs/photos.md). */
export function photoTarget(itemId: string): UploadTarget {
  return { kind: 'photo', startPath: `/api/items/${encodeURIComponent(itemId)}/uploads`, fields: {} }
}

/** A new revision of a document (docs/documents.md "Revisions"): its code and status are checked before any byte is sent. */
export function revisionTarget(documentId: string, revision: { code: string; status: string; comment?: string | null | undefined }): UploadTarget {
  return {
    kind: 'revision',
    startPath: `/api/documents/${encodeURIComponent(documentId)}/uploads`,
    fields: { code: revision.code, status: revision.status, ...(revision.comment ? { comment: revision.comment } : {}) },
  }
}

/** An item id stands for the photo target of that item (field mode's outbox keeps item ids). */
export function targetOf(target: UploadTarget | string): UploadTarget {
  return typeof target === 'string' ? photoTarget(target) : target
}

/** The id a completed session made, whichever kind. */
export function madeId(session: UploadSessionInfo): string | null {
  return session.photoId ?? session.revisionId ?? null
}

export type UploadApi = {
  create(target: UploadTarget | string, file: { name: string; size: number; type: string }): Promise<UploadSessionInfo>
  status(sessionId: string): Promise<UploadSessionInfo>
  putChunk(sessionId: string, offset: number, bytes: Blob, signal: AbortSignal): Promise<UploadSessionInfo>
  complete(sessionId: string): Promise<UploadedFile>
  abort(sessionId: string): Promise<void>
}

/** A failed call: `network` when no answer came (cut, timeout, offline), else the status and problem. */
export class UploadCallError extends Error {
  override name = 'UploadCallError'
  constructor(
    readonly network: boolean,
    readonly status: number | undefined,
    readonly problem: ProblemDetails | undefined,
    message: string,
  ) {
    super(message)
  }

  static from(error: ApiError): UploadCallError {
    const network = error.kind === 'FETCH_ERROR' || error.kind === 'TIMEOUT_ERROR'
    return new UploadCallError(network, error.status, error.problem, error.message)
  }
}

/** A chunk may take long on a poor line, but a stalled one must not hang the queue forever. */
const CHUNK_TIMEOUT_MS = 120_000
const CALL_TIMEOUT_MS = 30_000

export function createUploadApi(api: ApiClient): UploadApi {
  async function call<T>(promise: ReturnType<ApiClient['request']>): Promise<T> {
    const result = await promise
    if (!result.ok) throw UploadCallError.from(result.error)
    return result.data as T
  }
  const session = (id: string) => `/api/uploads/${encodeURIComponent(id)}`
  return {
    create: (target, file) => {
      const { kind, startPath, fields } = targetOf(target)
      const body = { ...fields, fileName: file.name || (kind === 'photo' ? 'photo' : 'file'), size: file.size, contentType: file.type || 'application/octet-stream' }
      return call(api.post(startPath, body, { timeoutMs: CALL_TIMEOUT_MS }))
    },
    status: (id) => call(api.get(session(id), { timeoutMs: CALL_TIMEOUT_MS })),
    putChunk: (id, offset, bytes, signal) =>
      call(
        api.request(`${session(id)}/chunk?offset=${offset}`, {
          method: 'PUT',
          body: bytes,
          headers: { 'content-type': 'application/octet-stream' },
          signal,
          timeoutMs: CHUNK_TIMEOUT_MS,
        }),
      ),
    complete: (id) => call(api.post(`${session(id)}/complete`, {}, { timeoutMs: CALL_TIMEOUT_MS })),
    abort: async (id) => {
      await call(api.del(session(id), { timeoutMs: CALL_TIMEOUT_MS }))
    },
  }
}

export type UploadOutcome = { ok: true; id: string } | { ok: false; message: string; cancelled: boolean }

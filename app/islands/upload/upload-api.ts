import type { ApiClient, ApiError, ApiResult, ProblemDetails } from '~/lib/api/types'
import { targetOf, type UploadTarget } from './upload-target'

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
  async function call<T>(promise: Promise<ApiResult<T>>): Promise<T> {
    const result = await promise
    if (!result.ok) throw UploadCallError.from(result.error)
    return result.data
  }
  const session = (sessionId: string) => ({ sessionId })
  return {
    create: (to, file) => {
      const target = targetOf(to)
      const named = { fileName: file.name || (target.kind === 'photo' ? 'photo' : 'file'), size: file.size, contentType: file.type || 'application/octet-stream' }
      return target.kind === 'photo'
        ? call(api.POST('/api/items/{itemId}/uploads', { path: { itemId: target.itemId }, body: named, timeoutMs: CALL_TIMEOUT_MS }))
        : call(api.POST('/api/documents/{id}/uploads', { path: { id: target.documentId }, body: { ...named, ...target.revision }, timeoutMs: CALL_TIMEOUT_MS }))
    },
    status: (id) => call(api.GET('/api/uploads/{sessionId}', { path: session(id), timeoutMs: CALL_TIMEOUT_MS })),
    putChunk: (id, offset, bytes, signal) =>
      call(
        api.PUT('/api/uploads/{sessionId}/chunk', {
          path: session(id),
          query: { offset: String(offset) },
          body: bytes,
          headers: { 'content-type': 'application/octet-stream' },
          signal,
          timeoutMs: CHUNK_TIMEOUT_MS,
        }),
      ),
    complete: (id) => call(api.POST('/api/uploads/{sessionId}/complete', { path: session(id), timeoutMs: CALL_TIMEOUT_MS })),
    abort: async (id) => {
      await call(api.DELETE('/api/uploads/{sessionId}', { path: session(id), timeoutMs: CALL_TIMEOUT_MS }))
    },
  }
}

export type UploadOutcome = { ok: true; id: string } | { ok: false; message: string; cancelled: boolean }

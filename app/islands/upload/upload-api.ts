import type { ApiClient, ApiError, ProblemDetails } from '~/lib/api/types'

/** The calls of docs/photos.md "Upload protocol" that the island makes. */

export type SessionState = 'open' | 'completing' | 'completed' | 'aborted' | 'expired' | 'failed'

export type UploadSessionInfo = { id: string; offset: number; size: number; chunkSize: number; state: SessionState; photoId: string | null; failureReason: string | null }

export type UploadedPhoto = { id: string; fileName: string; thumbnailUrl: string | null }

export type UploadApi = {
  create(itemId: string, file: { name: string; size: number; type: string }): Promise<UploadSessionInfo>
  status(sessionId: string): Promise<UploadSessionInfo>
  putChunk(sessionId: string, offset: number, bytes: Blob, signal: AbortSignal): Promise<UploadSessionInfo>
  complete(sessionId: string): Promise<UploadedPhoto>
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
    create: (itemId, file) =>
      call(api.post(`/api/items/${encodeURIComponent(itemId)}/uploads`, { fileName: file.name || 'photo', size: file.size, contentType: file.type || 'application/octet-stream' }, { timeoutMs: CALL_TIMEOUT_MS })),
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

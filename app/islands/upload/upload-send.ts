import { track } from '~/lib/telemetry'
import { madeId, UploadCallError, type UploadApi, type UploadSessionInfo } from './upload-api'
import type { UploadTarget } from './upload-target'
import { nextChunk } from './upload-chunks'

/**
 * One file's resumable upload (docs/photos.md "Upload protocol"): ask where its session stands,
 * start a new one at the target when there is none (or it died), send what the server lacks chunk
 * by chunk, complete. The upload island's queue (photos of an item, a revision of a document) and
 * the field-mode outbox all send files through it, so there is one upload mechanism. Errors are
 * thrown as they come; the caller decides on retrying.
 */

export type UploadFile = Blob & { name: string; type: string }

export type SendHooks = {
  /** The session the file now goes to and the bytes it holds (keep it: a retry resumes there). */
  onSession(sessionId: string, offset: number, chunkSize: number): void | Promise<void>
  /** The server confirmed bytes up to `offset`. */
  onProgress(offset: number): void
  /** False once the file was paused or removed: the send stops between calls. */
  active(): boolean
  /** A fresh signal for each chunk, so a pause can cut one short. */
  chunkSignal(): AbortSignal
}

/**
 * Sends the file to the target (an item id: its photos); returns the id of what it made (the photo,
 * the revision), or null when `active()` turned false on the way.
 */
export async function sendResumable(api: UploadApi, target: UploadTarget | string, file: UploadFile, sessionId: string | null, hooks: SendHooks): Promise<string | null> {
  try {
    return await send(api, target, file, sessionId, hooks)
  } catch (error) {
    const failure = error instanceof UploadCallError ? error : undefined
    track('web.uploads.failed', {
      status: failure?.status ?? null,
      code: failure?.problem?.code ?? null,
      network: failure?.network ?? false,
      transient: isTransientUploadError(error),
    })
    throw error
  }
}

async function send(api: UploadApi, target: UploadTarget | string, file: UploadFile, sessionId: string | null, hooks: SendHooks): Promise<string | null> {
  let session: UploadSessionInfo | undefined
  if (sessionId) {
    session = await api.status(sessionId)
    const made = madeId(session)
    if (session.state === 'completed' && made) return made
    if (session.state === 'expired' || session.state === 'aborted' || session.state === 'failed') session = undefined
  }
  // No file names: the size and type are enough to see what slows uploads down.
  if (session) track('web.uploads.resumed', { bytes: file.size, offset: session.offset, contentType: file.type || null })
  else track('web.uploads.started', { bytes: file.size, contentType: file.type || null })
  session ??= await api.create(target, file)
  await hooks.onSession(session.id, session.offset, session.chunkSize)
  let sent = session.offset
  for (let range = nextChunk(sent, file.size, session.chunkSize); range; range = nextChunk(sent, file.size, session.chunkSize)) {
    if (!hooks.active()) return null
    const after = await api.putChunk(session.id, range.start, file.slice(range.start, range.end), hooks.chunkSignal())
    sent = after.offset
    hooks.onProgress(sent)
  }
  if (!hooks.active()) return null
  return (await api.complete(session.id)).id
}

/** Errors worth retrying: no answer, a busy or out-of-step session (ask where it stands), or a server having a bad moment. */
export function isTransientUploadError(error: unknown): boolean {
  if (!(error instanceof UploadCallError)) return false
  if (error.network) return true
  const code = error.problem?.code
  if (code === 'KR_UPLOAD_OFFSET_MISMATCH' || code === 'KR_UPLOAD_BUSY' || code === 'KR_UPLOAD_INCOMPLETE') return true
  const status = error.status ?? 0
  return status === 408 || status === 429 || status >= 500
}

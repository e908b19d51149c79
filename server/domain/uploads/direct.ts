import { receiveChunk } from './chunks'
import { abortUpload, completeUpload, type Completed, type UploadMade } from './engine'
import type { UploadRuntime } from './runtime'
import type { UploadSession } from './session'

/**
 * Files sent in one request (the forms without JavaScript: photos, support attachments, a
 * revision): each goes through the same session, chunk and complete steps as a resumable upload,
 * so limits, quota, type checks and what complete makes are the same as with JavaScript on.
 */

/** A file of a parsed form (the web File, or anything with its size, type and slices). */
export type DirectFile = { name: string; size: number; type: string; slice(start: number, end: number): Blob }

/** The file's bytes, one read at a time, as the store's append expects them. */
export async function* bytesOf(blob: Blob): AsyncGenerator<Uint8Array> {
  const reader = blob.stream().getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      yield value
    }
  } finally {
    reader.releaseLock()
  }
}

/**
 * One whole file through a session `start` opens: its bytes in chunks of the session's size
 * (`read` answers the bytes from `start` to before `end`), then complete. Answers what the
 * finisher of `purpose` made. Whatever fails aborts the session, so an open one gives its staged
 * bytes and its quota back (a failed one needs no abort; the abort then refuses quietly).
 */
export async function sendWhole<P extends keyof UploadMade>(
  rt: UploadRuntime,
  purpose: P,
  start: () => Promise<UploadSession>,
  size: number,
  read: (start: number, end: number) => AsyncIterable<Uint8Array>,
): Promise<UploadMade[P]> {
  const session = await start()
  try {
    let offset = 0
    while (offset < size) {
      const end = Math.min(size, offset + session.chunkSize)
      offset = (await receiveChunk(rt, session.id, offset, read(offset, end), end - offset)).offset
    }
    const done: Completed = await completeUpload(rt, session.id)
    if (done.purpose !== purpose) throw new Error(`a ${purpose} upload completed as ${done.purpose}`)
    return done as unknown as UploadMade[P]
  } catch (error) {
    await abortUpload(rt, session.id).catch(() => undefined)
    throw error
  }
}

/** `sendWhole` for a form's file: its slices are its bytes. */
export function sendFile<P extends keyof UploadMade>(rt: UploadRuntime, purpose: P, start: () => Promise<UploadSession>, file: DirectFile): Promise<UploadMade[P]> {
  return sendWhole(rt, purpose, start, file.size, (from, end) => bytesOf(file.slice(from, end)))
}

/**
 * All or nothing over a form's files: each is stored in turn; when one is refused, `undo` takes
 * back those stored before it (a failed undo is logged, the refusal is what the caller gets).
 */
export async function storeAllOrNothing<F, T>(
  rt: UploadRuntime,
  files: readonly F[],
  store: (file: F) => Promise<T>,
  undo: (stored: T) => Promise<void>,
  what: string,
): Promise<T[]> {
  const stored: T[] = []
  try {
    for (const file of files) stored.push(await store(file))
  } catch (error) {
    for (const done of stored) await undo(done).catch((e: unknown) => rt.warn({ err: e }, `${what}: undo failed`))
    throw error
  }
  return stored
}

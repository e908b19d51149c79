import { sniffImageType } from './images'
import { deletePhoto, MAX_FILE_BYTES, tooLarge, typeProblem, type Photo, type PhotoRuntime } from './photos'
import { receiveChunk } from './chunks'
import { abortUpload, completeUpload, createUpload } from './uploads'

/**
 * Photos sent in one request (the form without JavaScript): each file goes through the same
 * session, append and complete steps as a resumable upload, so limits, quota, type checks and
 * renditions are the same. All or nothing: a refused file undoes the photos stored before it.
 */

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

/** Refuses before anything is stored: every file must be a photo, within the file size limit. */
async function check(files: readonly DirectFile[]): Promise<void> {
  for (const file of files) {
    if (file.size > MAX_FILE_BYTES) throw tooLarge(file.size)
    const head = new Uint8Array(await file.slice(0, 512).arrayBuffer())
    if (!sniffImageType(head)) throw typeProblem(`${file.name || 'A file'} is not a JPEG, PNG, WebP, HEIC or HEIF image.`)
  }
}

async function storeOne(rt: PhotoRuntime, itemId: string, file: DirectFile): Promise<Photo> {
  const session = await rt.run((ctx) => createUpload(ctx, itemId, { fileName: file.name || 'photo', size: file.size, contentType: file.type || 'application/octet-stream' }))
  try {
    let offset = 0
    while (offset < file.size) {
      const end = Math.min(file.size, offset + session.chunkSize)
      offset = (await receiveChunk(rt, session.id, offset, bytesOf(file.slice(offset, end)), end - offset)).offset
    }
    const done = await completeUpload(rt, session.id)
    if (done.purpose !== 'photo') throw new Error('a photo upload completed as something else')
    return done.photo
  } catch (error) {
    await abortUpload(rt, session.id).catch(() => undefined)
    throw error
  }
}

export async function storeDirectPhotos(rt: PhotoRuntime, itemId: string, files: readonly DirectFile[]): Promise<Photo[]> {
  await check(files)
  const stored: Photo[] = []
  try {
    for (const file of files) stored.push(await storeOne(rt, itemId, file))
  } catch (error) {
    for (const photo of stored) await deletePhoto(rt, photo.id).catch((e: unknown) => rt.warn({ err: e, photoId: photo.id }, 'direct upload: undo failed'))
    throw error
  }
  return stored
}

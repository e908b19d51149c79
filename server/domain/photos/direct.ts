import { sendFile, storeAllOrNothing, type DirectFile } from '#server/domain/uploads/direct'
import { sniffImageType } from './images'
import { deletePhoto, MAX_FILE_BYTES, tooLarge, typeProblem, type Photo, type PhotoRuntime } from './photos'
import { createUpload } from './uploads'

/**
 * Photos sent in one request (the form without JavaScript), through the upload engine's one-request
 * path (server/domain/uploads/direct.ts). All or nothing: a refused file undoes the photos stored
 * before it.
 */

/** Refuses before anything is stored: every file must be a photo, within the file size limit. */
async function check(files: readonly DirectFile[]): Promise<void> {
  for (const file of files) {
    if (file.size > MAX_FILE_BYTES) throw tooLarge(file.size)
    const head = new Uint8Array(await file.slice(0, 512).arrayBuffer())
    if (!sniffImageType(head)) throw typeProblem(`${file.name || 'A file'} is not a JPEG, PNG, WebP, HEIC or HEIF image.`)
  }
}

export async function storeDirectPhotos(rt: PhotoRuntime, itemId: string, files: readonly DirectFile[]): Promise<Photo[]> {
  await check(files)
  const storeOne = async (file: DirectFile) => {
    const start = () => rt.run((ctx) => createUpload(ctx, itemId, { fileName: file.name || 'photo', size: file.size, contentType: file.type || 'application/octet-stream' }))
    return (await sendFile(rt, 'photo', start, file)).photo
  }
  return storeAllOrNothing(rt, files, storeOne, (photo) => deletePhoto(rt, photo.id), 'direct photo upload')
}

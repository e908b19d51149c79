import type { ProblemDetails } from '~/lib/api/types'
import type { UploadKind } from './upload-target'
import { MAX_PHOTO_BYTES } from './upload-chunks'

/** One clear sentence per failed file (docs/photos.md "Limits"), naming the file. */

export function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`
}

export function tooLargeMessage(name: string, size: number): string {
  return `${name} is ${megabytes(size)}; a photo may be at most ${megabytes(MAX_PHOTO_BYTES)}. Send a smaller photo.`
}

export function notAPhotoMessage(name: string): string {
  return `${name} is not a photo: send a JPEG, PNG, WebP, HEIC or HEIF image.`
}

export function failureMessage(name: string, status: number | undefined, problem: ProblemDetails | undefined, kind: UploadKind = 'photo'): string {
  if (kind === 'revision') return revisionFailureMessage(name, status, problem)
  switch (problem?.code) {
    case 'KR_UPLOAD_TYPE':
      return notAPhotoMessage(name)
    case 'KR_UPLOAD_TOO_LARGE':
      return tooLargeMessage(name, typeof problem.sizeBytes === 'number' ? problem.sizeBytes : MAX_PHOTO_BYTES + 1)
    case 'KR_QUOTA_EXCEEDED':
      return `${name} was not stored: your organisation’s photo storage is full. Ask an administrator to free space or raise the quota.`
    case 'KR_UPLOAD_CHECKSUM_MISMATCH':
      return `${name} arrived damaged. Retry to send it again.`
  }
  if (status === 401) return `${name} is waiting: you were signed out. Sign in again in another tab, then retry.`
  if (status === 403) return `${name} was not stored: you may not add photos to this item.`
  if (status === 404) return `${name} was not stored: the item no longer exists.`
  if (status === 413) return `${name} is too large to send.`
  if (status === 415) return notAPhotoMessage(name)
  const detail = problem?.detail ? ` ${problem.detail}` : ''
  return `${name} could not be stored.${detail}`
}

/**
 * A document revision's file: the server checks its type, size and the revision's code and status
 * (docs/documents.md "Revisions"), and its detail says what to change, so it is passed on.
 */
function revisionFailureMessage(name: string, status: number | undefined, problem: ProblemDetails | undefined): string {
  const fieldProblems = Object.values(problem?.errors ?? {}).flat()
  const why = fieldProblems.length > 0 ? fieldProblems.join(' ') : problem?.detail
  if (problem?.code === 'KR_QUOTA_EXCEEDED') return `${name} was not stored: your organisation’s storage is full. Ask an administrator to free space or raise the quota.`
  if (problem?.code === 'KR_UPLOAD_CHECKSUM_MISMATCH') return `${name} arrived damaged. Retry to send it again.`
  if (status === 401) return `${name} is waiting: you were signed out. Sign in again in another tab, then retry.`
  if (status === 403) return `${name} was not stored: you may not add revisions to this document.`
  if (status === 404) return `${name} was not stored: the document no longer exists.`
  if (why) return `${name} was not stored: ${why}`
  if (status === 413) return `${name} was not stored: it is larger than the portal takes.`
  if (status === 415) return `${name} was not stored: the portal does not take files of its type.`
  return `${name} could not be stored.`
}

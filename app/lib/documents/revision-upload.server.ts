import type { ApiClient, ApiError, ApiResult } from '~/lib/api/types'
import { formMessageFor } from '~/lib/forms'
import type { Revision } from './types'

/**
 * Files of a form posted without JavaScript, forwarded to the API as multipart in one request:
 * the no-script twin of the resumable upload island. A form's file goes to the action with the
 * rest of the form; the action hands it on unread (the API reads its real type from the bytes and
 * refuses what it must), and a refusal comes back to the form next to the file field.
 */

/** The form's file under `name`, or undefined when none was chosen (browsers send an empty part). */
export function fileOf(formData: FormData, name = 'file'): File | undefined {
  const value = formData.get(name)
  return typeof value !== 'string' && value !== null && value.size > 0 ? value : undefined
}

/** A multipart body of files (each under its part name, with its own file name) and text fields; empty fields are left out. */
export function multipartBody(files: ReadonlyArray<readonly [string, File]>, fields: Readonly<Record<string, string | null | undefined>> = {}): FormData {
  const body = new FormData()
  for (const [name, value] of Object.entries(fields)) if (value !== undefined && value !== null && value !== '') body.append(name, value)
  for (const [name, file] of files) body.append(name, file, file.name)
  return body
}


export type RevisionInput = { code: string; status: string; comment?: string | undefined }

/** POST /api/documents/{id}/revisions: a revision's file, code, status and comment in one request. */
export function storeRevision(api: ApiClient, documentId: string, file: File, input: RevisionInput): Promise<ApiResult<Revision>> {
  // No idempotency key, as for photos: the body is streamed through, not kept to compare a replay with.
  const body = multipartBody([['file', file]], { code: input.code, status: input.status, comment: input.comment })
  return api.POST('/api/documents/{id}/revisions', { path: { id: documentId }, body })
}

/** Problems of the revision's own fields; the form shows them next to code, status and comment. */
const REVISION_FIELDS = ['code', 'status', 'comment'] as const

/**
 * A refused revision upload as field errors: code, status and comment next to theirs, and what is
 * about the file (its type, its size, the storage quota, a damaged upload) on `file`, with the
 * file named so the user knows which one.
 */
export function revisionUploadErrors(error: ApiError, fileName: string): Record<string, string[]> {
  const given = error.problem?.errors ?? {}
  const errors: Record<string, string[]> = {}
  for (const field of REVISION_FIELDS) if (given[field]?.length) errors[field] = given[field]
  const fileProblems = Object.entries(given).flatMap(([field, messages]) => ((REVISION_FIELDS as readonly string[]).includes(field) ? [] : messages))
  if (fileProblems.length > 0) errors.file = fileProblems.map((message) => `${fileName}: ${message}`)
  else if (Object.keys(errors).length === 0) errors.file = [fileRefusal(error, fileName)]
  return errors
}

/** One sentence saying that a file was not stored, and why. */
export function fileRefusal(error: ApiError, fileName: string): string {
  const status = error.status ?? 0
  if (status === 413) return `${fileName} was not stored: it is larger than the portal takes.`
  if (status === 415) return `${fileName} was not stored: the portal does not take files of its type.`
  const fieldMessages = Object.values(error.problem?.errors ?? {}).flat()
  const why = fieldMessages.length > 0 ? fieldMessages.join(' ') : formMessageFor(error)
  return `${fileName} was not stored: ${why}`
}

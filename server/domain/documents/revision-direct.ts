import { randomUUID } from 'node:crypto'
import { Readable } from 'node:stream'
import { bodyTooLarge } from '#server/http/limits'
import { Problem, problems } from '#server/http/problem'
import type { Revision } from '~/lib/documents/types'
import { sendWhole } from '../uploads/direct'
import type { UploadRuntime } from '../uploads/runtime'
import { readMultipart, MultipartError } from './revision-form'
import { MAX_REVISION_BYTES, revisionTooLarge } from './revision-rules'
import { OCTET_STREAM } from './revision-type'
import { checkRevisionStart, createRevisionUpload, type NewRevisionUpload } from './revisions'

/**
 * POST /api/documents/{id}/revisions: a revision sent in one request, as the form without
 * JavaScript does (multipart: a `file` part and `code`, `status`, `comment` fields). The file part
 * streams into a staging blob of its own as it arrives (revision-form.ts, busboy: memory does not
 * grow with the file); then the file goes through the same session, append and complete steps as a
 * resumable upload, so the checks, limits, quota and what complete makes are the same. The staging
 * copy is deleted whatever happens.
 */

/** The text fields of the form: the revision's code, status and comment. */
export type RevisionFields = Pick<NewRevisionUpload, 'code' | 'status' | 'comment'>

/** The body's framing and text fields around the file. */
const FORM_OVERHEAD_BYTES = 64 * 1024
export const DIRECT_REVISION_BODY_LIMIT = MAX_REVISION_BYTES + FORM_OVERHEAD_BYTES
const MAX_FIELD_BYTES = 8 * 1024

const badForm = (detail: string, field = '_') => new Problem(problems.badRequest(detail, { [field]: [detail] }))

/** The file's bytes, refused past the revision size limit. */
async function* capped(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let length = 0
  for await (const chunk of bytes) {
    length += chunk.length
    if (length > MAX_REVISION_BYTES) throw revisionTooLarge(length)
    yield chunk
  }
}

function formProblem(error: MultipartError): Problem {
  if (error.reason === 'too-large') return new Problem(bodyTooLarge(DIRECT_REVISION_BODY_LIMIT))
  if (error.reason === 'field-too-large' && error.field) return badForm(error.message, error.field)
  return badForm(`Send the revision as multipart/form-data with a file part and code, status and comment fields: ${error.message}`)
}

/**
 * Reads the form, checks its fields with `parseFields` (the HTTP side's schema), and issues the
 * revision. The document and the right to upload are checked before the body is read.
 */
export async function storeDirectRevision(
  rt: UploadRuntime,
  documentId: string,
  body: AsyncIterable<Uint8Array>,
  boundary: string,
  parseFields: (fields: Record<string, string>) => RevisionFields,
): Promise<Revision> {
  const tenantId = await rt.run(async (ctx) => {
    await checkRevisionStart(ctx, documentId)
    return ctx.actor.tenantId
  })
  const staged = `staging/${tenantId}/direct-${randomUUID()}`
  try {
    const fields: Record<string, string> = {}
    let file: { name: string; type: string; size: number } | undefined
    try {
      await readMultipart(body, boundary, { maxBodyBytes: DIRECT_REVISION_BODY_LIMIT, maxParts: 20, maxFieldBytes: MAX_FIELD_BYTES }, async (part) => {
        if (part.kind === 'field') {
          fields[part.name] = part.value
          return
        }
        // A file part under another name is skipped.
        if (part.name !== 'file') return
        if (file) throw badForm('Attach one file.', 'file')
        if (part.fileName.length > 255) throw badForm('The file name must be at most 255 characters.', 'file')
        // The form sends its fields before the file: a code or status that cannot be issued is refused before the file is stored.
        if (fields.code !== undefined && fields.status !== undefined) {
          const early = parseFields(fields)
          await rt.run((ctx) => checkRevisionStart(ctx, documentId, early))
        }
        const { size } = await rt.store.put(staged, Readable.from(capped(part.bytes)))
        file = { name: part.fileName, type: part.contentType || OCTET_STREAM, size }
      })
    } catch (error) {
      if (error instanceof MultipartError) throw formProblem(error)
      throw error
    }
    const input = parseFields(fields)
    if (!file || file.size === 0) throw badForm('Attach the revision’s file.', 'file')
    return await issue(rt, documentId, staged, { ...input, fileName: file.name || 'file', size: file.size, contentType: file.type })
  } finally {
    await rt.store.delete(staged).catch((error: unknown) => rt.warn({ err: error, key: staged }, 'a staged revision form could not be deleted'))
  }
}

/** The resumable steps for a file already staged: session, chunks (read from the staging copy), complete. */
async function issue(rt: UploadRuntime, documentId: string, staged: string, input: NewRevisionUpload): Promise<Revision> {
  const start = () => rt.run((ctx) => createRevisionUpload(ctx, documentId, input))
  const made = await sendWhole(rt, 'revision', start, input.size, (from, end) => rt.store.read(staged, { start: from, end: end - 1 }))
  return made.revision
}

import { Hono } from 'hono'
import { z } from 'zod'
import { createRevisionUpload, MAX_REVISION_BYTES, revisionBlob, type RevisionVariant } from '#server/domain/documents/revisions'
import { DIRECT_REVISION_BODY_LIMIT, storeDirectRevision, type RevisionFields } from '#server/domain/documents/revision-direct'
import { multipartBoundary } from '#server/domain/documents/revision-form'
import type { BackendEnv } from '#server/http/env'
import { operation, pathEnum } from '#server/http/contract'
import { bodyTooLarge } from '#server/http/limits'
import { fieldErrors, groupErrors, Problem, problems } from '#server/http/problem'
import { NewUploadSessionSchema, RevisionSchema } from '~/lib/schemas/photos-responses'
import { textProblems } from '~/lib/schemas/text'
import { serveBlob } from '../photos/serve-blob'
import { chunksOf, JSON_BODY_LIMIT, NewUploadSchema, photoRuntime } from '../photos/uploads'

/**
 * docs/documents.md "Revisions": a revision's upload session (its chunks, status, abort and
 * complete are the photos' calls under /api/uploads), the same in one multipart request for forms
 * without JavaScript, and a revision's file and sheet.
 */

export const REVISION_COMMENT_MAX = 2000

const revisionFields = {
  code: z.string({ error: 'Give the revision code, e.g. P01.' }).trim().toUpperCase().max(10, 'Use a revision code like P01, P01.1 or C01.'),
  status: z.string({ error: 'Choose the suitability, e.g. S2.' }).trim().toUpperCase().max(10, 'Choose a suitability code like S2 or A1.'),
  comment: z
    .string({ error: 'The comment must be text.' })
    .trim()
    .max(REVISION_COMMENT_MAX, `The comment must be at most ${REVISION_COMMENT_MAX} characters.`)
    .nullable()
    .optional()
    .transform((v) => (v ? v : null)),
}

export const NewRevisionUploadSchema = NewUploadSchema.extend({
  size: z.number({ error: 'size must be the file size in bytes.' }).int('size must be a whole number of bytes.').min(1, 'An empty file is not a revision.'),
  ...revisionFields,
})

const RevisionFieldsSchema = z.object(revisionFields)

/** The form's text fields, checked as a JSON body is (the one text rule, then the schema). */
function parseRevisionFields(fields: Record<string, string>): RevisionFields {
  const broken = textProblems(fields)
  if (broken.length > 0) throw new Problem(problems.badRequest('Some fields are not valid.', groupErrors(broken)))
  const parsed = RevisionFieldsSchema.safeParse({ code: fields.code ?? '', status: fields.status ?? '', comment: fields.comment })
  if (!parsed.success) throw new Problem(problems.badRequest('Some fields are not valid.', fieldErrors(parsed.error)))
  return parsed.data
}

const REVISION_VARIANTS = new Set<RevisionVariant>(['file', 'sheet'])

/** A revision's bytes never change under its id, and each use revalidates; a file never runs as a page. */
const REVISION_SERVING = { cache: 'no-cache', csp: 'sandbox', missing: 'The revision’s file was not found.' } as const

export const revisionRoutes = new Hono<BackendEnv>()
  .post(
    '/api/documents/:id/uploads',
    operation({
      summary: 'Start a resumable upload of a document’s next revision',
      description: 'The code and status are checked here, before any byte is sent. Chunks, status, abort and complete: the /api/uploads calls.',
      tag: 'Documents',
      access: 'session',
      body: NewRevisionUploadSchema,
      maxBodyBytes: JSON_BODY_LIMIT,
      responses: {
        201: { description: 'The upload session (purpose revision), with its chunk size and expiry.', schema: NewUploadSessionSchema },
        400: 'Every problem of the code and status at once (errors.code, errors.status).',
        403: 'View only on the document.',
        404: 'No such document.',
        409: 'The document is archived.',
        413: 'Over 1 GiB or the storage quota.',
      },
    }),
    async (c) => {
      const rt = photoRuntime(c)
      const session = await rt.run((ctx) => createRevisionUpload(ctx, c.req.param('id'), c.req.valid('json')))
      c.header('location', `/api/uploads/${session.id}`)
      c.header('cache-control', 'no-store')
      return c.json({ ...session, maxFileBytes: MAX_REVISION_BYTES }, 201)
    },
  )

  .post(
    '/api/documents/:id/revisions',
    operation({
      summary: 'Issue a revision in one request (the form without JavaScript)',
      tag: 'Documents',
      access: 'session',
      rawBody: { contentType: 'multipart/form-data', maxBytes: DIRECT_REVISION_BODY_LIMIT, description: 'A file part, and code, status and comment fields' },
      responses: {
        201: { description: 'The revision.', schema: RevisionSchema },
        400: 'Every problem of the code and status, or no file.',
        403: 'View only on the document.',
        404: 'No such document.',
        409: 'The document is archived, or another revision was issued meanwhile.',
        413: 'Over 1 GiB or the storage quota.',
      },
    }),
    async (c) => {
      const rt = photoRuntime(c)
      const boundary = multipartBoundary(c.req.header('content-type'))
      if (!boundary) throw new Problem(problems.badRequest('Send the revision as multipart/form-data with a file part and code, status and comment fields.'))
      const length = Number(c.req.header('content-length') ?? '0')
      if (length > DIRECT_REVISION_BODY_LIMIT) throw new Problem(bodyTooLarge(DIRECT_REVISION_BODY_LIMIT))
      const revision = await storeDirectRevision(rt, c.req.param('id'), chunksOf(c.req.raw.body), boundary, parseRevisionFields)
      c.header('location', revision.downloadUrl)
      return c.json(revision, 201)
    },
  )

  .get(
    '/api/revisions/:id/:variant',
    operation({
      summary: 'A revision’s file, or its sheet raster (PNG)',
      description: 'file: inline for PDF and PNG, JPEG, WebP and GIF images, an attachment otherwise; always under Content-Security-Policy: sandbox.',
      tag: 'Documents',
      access: 'session',
      params: z.object({ id: z.string(), variant: pathEnum(REVISION_VARIANTS, 'file: the file as issued; sheet: its raster (PNG), when it has one. Any other is 404.') }),
      responses: { 200: { description: 'The bytes, with ETag and Range support: the file’s own type, or PNG for the sheet.', contentType: '*/*' }, 206: { description: 'A byte range.', contentType: '*/*' }, 302: 'Only with BLOB_STORE=s3 and S3_PRESIGN_MIN_BYTES: a whole download of at least that size, after the permission check, goes to a short-lived presigned URL of the bucket.', 304: 'Not modified.', 404: 'No such revision, or no sheet.', 416: 'The range is past the end.' },
    }),
    async (c) => {
      const variant = c.req.param('variant') as RevisionVariant
      if (!REVISION_VARIANTS.has(variant)) throw new Problem(problems.notFound())
      const rt = photoRuntime(c)
      const blob = await rt.run((ctx) => revisionBlob(ctx, c.req.param('id'), variant))
      return serveBlob(c, blob, { ...REVISION_SERVING, disposition: blob.disposition })
    },
  )

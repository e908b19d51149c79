import { Hono, type Context } from 'hono'
import { z } from 'zod'
import type { BackendEnv } from '#server/http/env'
import type { PhotoRuntime } from '#server/domain/photos/photos'
import { MAX_FILE_BYTES } from '#server/domain/photos/photos'
import { CHUNK_BYTES } from '#server/domain/uploads/session'
import { receiveChunk } from '#server/domain/uploads/chunks'
// Complete serves every purpose: these modules register their finishers with the engine.
import '#server/domain/admin/support-attachments'
import '#server/domain/documents/revision-complete'
import { createUpload } from '#server/domain/photos/uploads'
import { abortUpload, completeUpload, getUpload, type UploadSession } from '#server/domain/uploads/engine'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import { operation } from '#server/http/contract'
import { Problem } from '#server/http/problem'
import { requireSession } from '#server/http/session'
import { blobStoreFor } from '#server/storage/blob-stores'
import { CompletedUploadSchema, NewUploadSessionSchema, UploadSessionSchema } from '~/lib/schemas/photos-responses'

/** docs/photos.md "Upload protocol": resumable upload sessions. */

export const NewUploadSchema = z.object({
  fileName: z.string({ error: 'Give the file name.' }).trim().min(1, 'Give the file name.').max(255, 'The file name must be at most 255 characters.'),
  size: z.number({ error: 'size must be the file size in bytes.' }).int('size must be a whole number of bytes.').min(1, 'An empty file is not a photo.'),
  contentType: z.string({ error: 'Give the content type.' }).trim().toLowerCase().min(1, 'Give the content type.').max(100),
  checksum: z.string({ error: 'The checksum must be text.' }).max(100, 'The checksum must be a SHA-256.').optional(),
})

/** A JSON body of an upload call is small: anything bigger is refused before it is read. */
export const JSON_BODY_LIMIT = 16 * 1024

/** A runtime for photo work of the session's member: each `run` is one tenant transaction. */
export function photoRuntime(c: Context<BackendEnv>): PhotoRuntime {
  const session = requireSession(c)
  const { db, now, config } = c.get('deps')
  const log = c.get('log')
  return {
    store: blobStoreFor(config),
    links: { publicUrl: config.publicUrl, linkSecret: config.sessionSecret },
    run: <T>(work: (ctx: DomainContext) => Promise<T>) => asMember(db, session, now(), work),
    warn: (details, message) => log.warn(details, message),
  }
}

const ChunkQuery = z.object({
  offset: z.string({ error: 'Give the offset the chunk starts at.' }).regex(/^\d{1,16}$/, 'Give the offset the chunk starts at, a whole number of bytes.'),
})

/** The request body one read at a time: no read-ahead, so bytes before a cut are never dropped. */
export async function* chunksOf(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (!body) return
  const reader = body.getReader()
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

export const uploadsRoutes = new Hono<BackendEnv>()
  .post(
    '/api/items/:itemId/uploads',
    operation({
      summary: 'Start a resumable photo upload for an item',
      tag: 'Photos',
      access: 'session',
      body: NewUploadSchema,
      maxBodyBytes: JSON_BODY_LIMIT,
      responses: {
        201: { description: 'The upload session, with its chunk size and expiry.', schema: NewUploadSessionSchema },
        403: 'A read-only member.',
        404: 'No such item.',
        413: 'Over the file size or the storage quota.',
        415: 'The file’s type is not one a photo can be (JPEG, PNG, WebP, HEIC or HEIF).',
      },
    }),
    async (c) => {
      const rt = photoRuntime(c)
      const input = c.req.valid('json')
      const session = await rt.run((ctx) => createUpload(ctx, c.req.param('itemId'), input))
      c.header('location', `/api/uploads/${session.id}`)
      c.header('cache-control', 'no-store')
      return c.json({ ...session, maxFileBytes: MAX_FILE_BYTES }, 201)
    },
  )

  .get(
    '/api/uploads/:sessionId',
    operation({
      summary: 'An upload session: where to resume',
      tag: 'Photos',
      access: 'session',
      responses: { 200: { description: 'The session and its offset (also in Upload-Offset).', schema: UploadSessionSchema satisfies z.ZodType<UploadSession> }, 404: 'No such upload of yours.' },
    }),
    async (c) => {
      const session = await getUpload(photoRuntime(c), c.req.param('sessionId'))
      c.header('upload-offset', String(session.offset))
      c.header('cache-control', 'no-store')
      return c.json(session)
    },
  )

  .put(
    '/api/uploads/:sessionId/chunk',
    operation({
      summary: 'Append a chunk at the stored offset',
      tag: 'Photos',
      access: 'session',
      query: ChunkQuery,
      rawBody: { contentType: 'application/octet-stream', maxBytes: CHUNK_BYTES, description: 'The bytes from offset on' },
      responses: {
        200: { description: 'The session with its new offset.', schema: UploadSessionSchema satisfies z.ZodType<UploadSession> },
        404: 'No such upload of yours.',
        409: 'Another offset is expected (expectedOffset), or another chunk is streaming.',
        410: 'The session expired.',
        415: 'Not application/octet-stream.',
      },
    }),
    async (c) => {
      const rt = photoRuntime(c)
      const { offset } = c.req.valid('query')
      const contentType = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase()
      if (contentType !== 'application/octet-stream') {
        throw new Problem({ status: 415, title: 'Unsupported media type', detail: 'Send a chunk as application/octet-stream.', code: 'KR_UPLOAD_CHUNK_TYPE' })
      }
      const lengthHeader = c.req.header('content-length')
      const contentLength = lengthHeader !== undefined && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : undefined
      const body = chunksOf(c.req.raw.body)
      const session = await receiveChunk(rt, c.req.param('sessionId'), Number(offset), body, contentLength)
      c.header('upload-offset', String(session.offset))
      c.header('cache-control', 'no-store')
      return c.json(session)
    },
  )

  .post(
    '/api/uploads/:sessionId/complete',
    operation({
      summary: 'Finish an upload: check, store and make the photo, the document revision or the support attachment',
      description:
        'What is made depends on the session: a photo (item uploads), a revision (document uploads, docs/documents.md "Revisions") or a support ticket attachment (docs/admin/support.md).',
      tag: 'Photos',
      access: 'session',
      maxBodyBytes: JSON_BODY_LIMIT,
      responses: {
        200: { description: 'Completed before: the same photo, revision or attachment.', schema: CompletedUploadSchema },
        201: { description: 'The photo, the revision, or the support attachment.', schema: CompletedUploadSchema },
        404: 'No such upload of yours.',
        409: 'Not all bytes have arrived (expectedOffset); or, for a revision, another revision was issued meanwhile (KR_REVISION_CONFLICT).',
        410: 'The session expired.',
        415: 'A photo that is not a JPEG, PNG, WebP, HEIC or HEIF; an attachment that is not an image, PDF, plain text or ZIP.',
        422: 'The checksum does not match.',
        503: 'Too much image work queued: retry.',
      },
    }),
    async (c) => {
      const done = await completeUpload(photoRuntime(c), c.req.param('sessionId'))
      if (done.purpose === 'revision') {
        c.header('location', done.revision.downloadUrl)
        return c.json(done.revision, done.replayed ? 200 : 201)
      }
      if (done.purpose === 'support') {
        c.header('location', done.attachment.downloadUrl)
        return c.json(done.attachment, done.replayed ? 200 : 201)
      }
      c.header('location', `/api/photos/${done.photo.id}`)
      return c.json(done.photo, done.replayed ? 200 : 201)
    },
  )

  .delete(
    '/api/uploads/:sessionId',
    operation({
      summary: 'Abort an upload and delete its bytes',
      tag: 'Photos',
      access: 'session',
      responses: { 204: 'Aborted.', 404: 'No such upload of yours.', 409: 'The session is completed or completing: it can no longer be aborted (KR_UPLOAD_STATE, with its state).' },
    }),
    async (c) => {
      await abortUpload(photoRuntime(c), c.req.param('sessionId'))
      return c.body(null, 204)
    },
  )

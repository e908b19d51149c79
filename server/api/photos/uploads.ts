import { Hono, type Context } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { z } from 'zod'
import type { BackendEnv } from '#server/http/env'
import type { PhotoRuntime } from '#server/domain/photos/photos'
import { MAX_FILE_BYTES } from '#server/domain/photos/photos'
import { receiveChunk } from '#server/domain/photos/chunks'
import { abortUpload, completeUpload, createUpload, getUpload } from '#server/domain/photos/uploads'
import { asMember, type DomainContext } from '#server/domain/reporting/context'
import { parseJson } from '#server/http/body'
import { Problem, problems } from '#server/http/problem'
import { requireSession } from '#server/http/session'
import { blobStoreFor } from '#server/storage/blob-store'

/** docs/photos.md "Upload protocol": resumable upload sessions. */

export const NewUploadSchema = z.object({
  fileName: z.string({ error: 'Give the file name.' }).trim().min(1, 'Give the file name.').max(255, 'The file name must be at most 255 characters.'),
  size: z
    .number({ error: 'size must be the file size in bytes.' })
    .int('size must be a whole number of bytes.')
    .min(1, 'An empty file is not a photo.'),
  contentType: z.string({ error: 'Give the content type.' }).trim().toLowerCase().min(1, 'Give the content type.').max(100),
  checksum: z.string({ error: 'The checksum must be text.' }).max(100, 'The checksum must be a SHA-256.').optional(),
})

/** A JSON body of an upload call is small: anything bigger is refused before it is read. */
export const JSON_BODY_LIMIT = 16 * 1024

export function bodyTooLarge(maxBytes: number): Problem {
  return new Problem({
    status: 413,
    title: 'Request body too large',
    detail: `This call takes at most ${maxBytes} bytes.`,
    code: 'KR_BODY_TOO_LARGE',
    extensions: { maxBytes },
  })
}

export const jsonLimit = bodyLimit({
  maxSize: JSON_BODY_LIMIT,
  onError: () => {
    throw bodyTooLarge(JSON_BODY_LIMIT)
  },
})

/** A runtime for photo work of the session's member: each `run` is one tenant transaction. */
export function photoRuntime(c: Context<BackendEnv>): PhotoRuntime {
  const session = requireSession(c)
  const { db, now, config } = c.get('deps')
  const log = c.get('log')
  return {
    store: blobStoreFor(config),
    run: <T>(work: (ctx: DomainContext) => Promise<T>) => asMember(db, session, now(), work),
    warn: (details, message) => log.warn(details, message),
  }
}

const OFFSET = /^\d{1,16}$/

/** The request body one read at a time: no read-ahead, so bytes before a cut are never dropped. */
async function* chunksOf(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
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
  .post('/api/items/:itemId/uploads', jsonLimit, async (c) => {
    const rt = photoRuntime(c)
    const input = await parseJson(c, NewUploadSchema)
    const session = await rt.run((ctx) => createUpload(ctx, c.req.param('itemId'), input))
    c.header('location', `/api/uploads/${session.id}`)
    c.header('cache-control', 'no-store')
    return c.json({ ...session, maxFileBytes: MAX_FILE_BYTES }, 201)
  })

  .get('/api/uploads/:sessionId', async (c) => {
    const session = await getUpload(photoRuntime(c), c.req.param('sessionId'))
    c.header('upload-offset', String(session.offset))
    c.header('cache-control', 'no-store')
    return c.json(session)
  })

  .put('/api/uploads/:sessionId/chunk', async (c) => {
    const rt = photoRuntime(c)
    const offsetParam = c.req.query('offset') ?? ''
    if (!OFFSET.test(offsetParam)) throw new Problem(problems.badRequest('The offset query parameter must be a whole number of bytes.', { offset: ['Give the offset the chunk starts at.'] }))
    const contentType = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase()
    if (contentType !== 'application/octet-stream') {
      throw new Problem({ status: 415, title: 'Unsupported media type', detail: 'Send a chunk as application/octet-stream.', code: 'KR_UPLOAD_CHUNK_TYPE' })
    }
    const lengthHeader = c.req.header('content-length')
    const contentLength = lengthHeader !== undefined && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : undefined
    const body = chunksOf(c.req.raw.body)
    const session = await receiveChunk(rt, c.req.param('sessionId'), Number(offsetParam), body, contentLength)
    c.header('upload-offset', String(session.offset))
    c.header('cache-control', 'no-store')
    return c.json(session)
  })

  .post('/api/uploads/:sessionId/complete', jsonLimit, async (c) => {
    const { photo, replayed } = await completeUpload(photoRuntime(c), c.req.param('sessionId'))
    c.header('location', `/api/photos/${photo.id}`)
    return c.json(photo, replayed ? 200 : 201)
  })

  .delete('/api/uploads/:sessionId', async (c) => {
    await abortUpload(photoRuntime(c), c.req.param('sessionId'))
    return c.body(null, 204)
  })

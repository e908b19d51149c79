import { Readable } from 'node:stream'
import type { ReadableStream as NodeWebStream } from 'node:stream/web'
import { Hono, type Context } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { z } from 'zod'
import type { BackendEnv } from '#server/http/env'
import { fieldErrors } from '#server/http/problem'
import { reorderPhotos } from '#server/domain/photos/order'
import { updatePhoto } from '#server/domain/photos/patch'
import { createEdit, deletePhoto, listPhotos, MAX_FILE_BYTES } from '#server/domain/photos/photos'
import { editBlob, parseRange, photoBlob, type EditVariant, type PhotoVariant, type ServedBlob } from '#server/domain/photos/serving'
import { operation } from '#server/http/contract'
import { bodyTooLarge } from '#server/http/limits'
import { Problem, problems } from '#server/http/problem'
import { blobStoreFor } from '#server/storage/blob-store'
import { JSON_BODY_LIMIT, photoRuntime } from './uploads'

/** docs/photos.md "Photos" and "Serving". */

const blankAsNull = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? null : v)

export const PhotoPatchSchema = z.object({
  sortOrder: z
    .number({ error: 'sortOrder must be a number.' })
    .int('sortOrder must be a whole number.')
    .min(0, 'sortOrder must be 0 or more.')
    .max(1_000_000, 'sortOrder must be at most 1000000.')
    .optional(),
  caption: z
    .preprocess(blankAsNull, z.string({ error: 'The caption must be text.' }).trim().max(500, 'The caption must be at most 500 characters.').nullable())
    .optional(),
})

/** The most photos one order call names: far above any item's gallery, and within the 16 KB body limit. */
const MAX_ORDER_IDS = 300

export const PhotoOrderSchema = z.object({
  photoIds: z
    .array(z.string({ error: 'Each photo id must be text.' }).max(64, 'Not a photo id.'), {
      error: 'photoIds must be the list of the item’s photo ids, in the new order.',
    })
    .max(MAX_ORDER_IDS, `Name at most ${MAX_ORDER_IDS} photos.`),
})

const OVERLAY_LIMIT = 1024 * 1024
/** The multipart body of an edit: the file, its overlay and a little framing. */
const EDIT_BODY_LIMIT = MAX_FILE_BYTES + OVERLAY_LIMIT + 64 * 1024

const EditFieldsSchema = z.object({
  photoId: z.string({ error: 'Give the photo id.' }).min(1, 'Give the photo id.'),
  overlayJson: z
    .string({ error: 'overlayJson must be the overlay as JSON text.' })
    .max(OVERLAY_LIMIT, 'The overlay must be at most 1 MB.')
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown
      } catch {
        ctx.addIssue({ code: 'custom', message: 'overlayJson must be valid JSON.' })
        return z.NEVER
      }
    }),
})

const PHOTO_VARIANTS = new Set<PhotoVariant>(['display', 'thumbnail', 'original'])
const EDIT_VARIANTS = new Set<EditVariant>(['display', 'thumbnail', 'file'])

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t.replace(/^W\//, '') === etag
  })
}

/** Streams a served blob with ETag, Cache-Control (immutable when the URL names its version) and one byte range. */
async function serve(c: Context<BackendEnv>, blob: ServedBlob, download: boolean): Promise<Response> {
  const store = blobStoreFor(c.get('deps').config)
  const stat = await store.stat(blob.key)
  if (!stat) throw new Problem(problems.notFound('The photo file was not found.'))
  const etag = `"${blob.sha256}"`
  const version = c.req.query('v')
  const headers: Record<string, string> = {
    etag,
    'cache-control': version && version.length >= 8 && blob.sha256.startsWith(version) ? 'private, max-age=31536000, immutable' : 'private, no-cache',
    'accept-ranges': 'bytes',
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; sandbox",
  }
  if (download) headers['content-disposition'] = `attachment; filename*=UTF-8''${encodeURIComponent(blob.fileName)}`
  if (etagMatches(c.req.header('if-none-match'), etag)) return c.body(null, 304, headers)

  const ifRange = c.req.header('if-range')
  const range = ifRange !== undefined && ifRange !== etag ? 'none' : parseRange(c.req.header('range'), stat.size)
  headers['content-type'] = blob.contentType
  if (range === 'unsatisfiable') {
    return c.body(null, 416, { ...headers, 'content-range': `bytes */${stat.size}` })
  }
  const part = range === 'none' ? undefined : range
  const length = part ? part.end - part.start + 1 : stat.size
  // HEAD: the headers only, without opening the file.
  if (part) headers['content-range'] = `bytes ${part.start}-${part.end}/${stat.size}`
  if (c.req.method === 'HEAD') return c.body(null, part ? 206 : 200, { ...headers, 'content-length': String(length) })
  const stream = Readable.toWeb(store.read(blob.key, part)) as unknown as ReadableStream<Uint8Array>
  if (!part) return c.body(stream, 200, { ...headers, 'content-length': String(stat.size) })
  return c.body(stream, 206, { ...headers, 'content-length': String(length) })
}

export const photosRoutes = new Hono<BackendEnv>()
  .get(
    '/api/items/:itemId/photos',
    operation({ summary: 'The item’s photos, in their order', tag: 'Photos', access: 'session', responses: { 200: 'The photos.', 404: 'No such item.' } }),
    async (c) => {
      const rt = photoRuntime(c)
      return c.json({ items: await rt.run((ctx) => listPhotos(ctx, c.req.param('itemId'))) })
    },
  )

  .put(
    '/api/items/:itemId/photos/order',
    operation({
      summary: 'Put the item’s photos in this order, all at once',
      tag: 'Photos',
      access: 'session',
      body: PhotoOrderSchema,
      maxBodyBytes: JSON_BODY_LIMIT,
      responses: {
        200: 'The photos in their new order.',
        403: 'A read-only member.',
        404: 'No such item.',
        409: 'The list is not the item’s photos: photoIds has the current order.',
      },
    }),
    async (c) => {
      const rt = photoRuntime(c)
      const { photoIds } = c.req.valid('json')
      return c.json({ items: await rt.run((ctx) => reorderPhotos(ctx, c.req.param('itemId'), photoIds)) })
    },
  )

  .post(
    '/api/photos/edits',
    operation({
      summary: 'Save an edited version of a photo (markup flattened, with its overlay)',
      tag: 'Photos',
      access: 'session',
      rawBody: { contentType: 'multipart/form-data', maxBytes: EDIT_BODY_LIMIT, description: 'photoId, file and overlayJson parts' },
      responses: { 201: 'The photo with its new edit.', 403: 'Not allowed.', 404: 'No such photo.' },
    }),
    bodyLimit({
      maxSize: EDIT_BODY_LIMIT,
      onError: () => {
        throw new Problem(bodyTooLarge(EDIT_BODY_LIMIT))
      },
    }),
    async (c) => {
      const rt = photoRuntime(c)
      let form: FormData
      try {
        form = await c.req.raw.formData()
      } catch (error) {
        if (error instanceof Problem) throw error
        throw new Problem(problems.badRequest('Send the edit as multipart/form-data with photoId, file and overlayJson.'))
      }
      const file = form.get('file')
      const parsed = EditFieldsSchema.safeParse({ photoId: form.get('photoId') ?? undefined, overlayJson: form.get('overlayJson') ?? undefined })
      const errors = parsed.success ? {} : fieldErrors(parsed.error)
      if (!(file instanceof File) || file.size === 0) errors.file = ['Attach the edited image as file.']
      if (!parsed.success || !(file instanceof File) || file.size === 0) throw new Problem(problems.badRequest('Some fields are not valid.', errors))
      const stream = Readable.fromWeb(file.stream() as unknown as NodeWebStream<Uint8Array>)
      const photo = await createEdit(rt, { photoId: parsed.data.photoId, file: stream, overlayJson: parsed.data.overlayJson })
      return c.json(photo, 201)
    },
  )

  .patch(
    '/api/photos/:photoId',
    operation({
      summary: 'Move a photo to a place, or change its caption',
      tag: 'Photos',
      access: 'session',
      body: PhotoPatchSchema,
      maxBodyBytes: JSON_BODY_LIMIT,
      responses: { 200: 'The photo.', 403: 'Not allowed.', 404: 'No such photo.' },
    }),
    async (c) => {
      const rt = photoRuntime(c)
      const patch = c.req.valid('json')
      return c.json(await rt.run((ctx) => updatePhoto(ctx, c.req.param('photoId'), patch)))
    },
  )

  .delete(
    '/api/photos/:photoId',
    operation({ summary: 'Delete a photo', tag: 'Photos', access: 'session', responses: { 204: 'Deleted.', 403: 'Not allowed.', 404: 'No such photo.' } }),
    async (c) => {
      await deletePhoto(photoRuntime(c), c.req.param('photoId'))
      return c.body(null, 204)
    },
  )

  .get(
    '/api/photos/:photoId/edits/:editId/:variant',
    operation({
      summary: 'An edited version’s file: display, thumbnail or file',
      tag: 'Photos',
      access: 'session',
      responses: { 200: 'The image, with ETag and Range support.', 206: 'A byte range.', 304: 'Not modified.', 404: 'No such edit.' },
    }),
    async (c) => {
      const rt = photoRuntime(c)
      const variant = c.req.param('variant') as EditVariant
      if (!EDIT_VARIANTS.has(variant)) throw new Problem(problems.notFound())
      const blob = await rt.run((ctx) => editBlob(ctx, c.req.param('photoId'), c.req.param('editId'), variant))
      return serve(c, blob, false)
    },
  )

  .get(
    '/api/photos/:photoId/:variant',
    operation({
      summary: 'A photo’s file: display, thumbnail or original (a download)',
      tag: 'Photos',
      access: 'session',
      responses: { 200: 'The image, with ETag and Range support.', 206: 'A byte range.', 304: 'Not modified.', 404: 'No such photo.' },
    }),
    async (c) => {
      const rt = photoRuntime(c)
      const variant = c.req.param('variant') as PhotoVariant
      if (!PHOTO_VARIANTS.has(variant)) throw new Problem(problems.notFound())
      const blob = await rt.run((ctx) => photoBlob(ctx, c.req.param('photoId'), variant))
      return serve(c, blob, variant === 'original')
    },
  )

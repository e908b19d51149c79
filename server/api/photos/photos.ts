import { Readable } from 'node:stream'
import type { ReadableStream as NodeWebStream } from 'node:stream/web'
import { Hono } from 'hono'
import { z } from 'zod'
import type { BackendEnv } from '#server/http/env'
import { fieldErrors } from '#server/http/problem'
import { reorderPhotos } from '#server/domain/photos/order'
import { updatePhoto } from '#server/domain/photos/patch'
import { createEdit, deletePhoto, listPhotos, MAX_FILE_BYTES, type Photo } from '#server/domain/photos/photos'
import { editBlob, photoBlob, type EditVariant, type PhotoVariant } from '#server/domain/photos/serving'
import { operation, pathEnum } from '#server/http/contract'
import { multipartForm, multipartLimit } from '#server/http/multipart'
import { Problem, problems } from '#server/http/problem'
import { serveBlob } from './serve-blob'
import { JSON_BODY_LIMIT, photoRuntime } from './uploads'
import { PhotoListSchema, PhotoSchema } from '~/lib/schemas/photos-responses'
import { expectedRevision, STALE_WRITE } from '~/lib/schemas/edit-conflict'

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
  expectedRevision,
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

/** Photo URLs carry their version (`?v=`): cached for good when it matches; served as images, never documents. */
const PHOTO_SERVING = { cache: 'versioned', csp: "default-src 'none'; sandbox", missing: 'The photo file was not found.' } as const

const PHOTO_VARIANTS = new Set<PhotoVariant>(['display', 'thumbnail', 'original'])
const EDIT_VARIANTS = new Set<EditVariant>(['display', 'thumbnail', 'file'])

export const photosRoutes = new Hono<BackendEnv>()
  .get(
    '/api/items/:itemId/photos',
    operation({ summary: 'The item’s photos, in their order', tag: 'Photos', access: 'session', responses: { 200: { description: 'The photos.', schema: PhotoListSchema satisfies z.ZodType<{ items: Photo[] }> }, 404: 'No such item.' } }),
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
        200: { description: 'The photos in their new order.', schema: PhotoListSchema },
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
      responses: { 201: { description: 'The photo with its new edit.', schema: PhotoSchema satisfies z.ZodType<Photo> }, 403: 'Not allowed.', 404: 'No such photo.', 415: 'The edited file is not a JPEG, PNG or WebP image.' },
    }),
    multipartLimit(EDIT_BODY_LIMIT),
    async (c) => {
      const rt = photoRuntime(c)
      const form = await multipartForm(c, 'the edit with photoId, file and overlayJson')
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
      responses: { 200: { description: 'The photo.', schema: PhotoSchema satisfies z.ZodType<Photo> }, 403: 'Not allowed.', 404: 'No such photo.', 409: STALE_WRITE },
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
      params: z.object({ photoId: z.string(), editId: z.string(), variant: pathEnum(EDIT_VARIANTS, 'Any other is 404.') }),
      responses: { 200: { description: 'The image, with ETag and Range support.', contentType: 'image/*' }, 206: { description: 'A byte range.', contentType: 'image/*' }, 304: 'Not modified.', 404: 'No such edit.' },
    }),
    async (c) => {
      const rt = photoRuntime(c)
      const variant = c.req.param('variant') as EditVariant
      if (!EDIT_VARIANTS.has(variant)) throw new Problem(problems.notFound())
      const blob = await rt.run((ctx) => editBlob(ctx, c.req.param('photoId'), c.req.param('editId'), variant))
      return serveBlob(c, blob, PHOTO_SERVING)
    },
  )

  .get(
    '/api/photos/:photoId/:variant',
    operation({
      summary: 'A photo’s file: display, thumbnail or original (a download)',
      tag: 'Photos',
      access: 'session',
      params: z.object({ photoId: z.string(), variant: pathEnum(PHOTO_VARIANTS, 'original is a download. Any other is 404.') }),
      responses: { 200: { description: 'The image, with ETag and Range support.', contentType: 'image/*' }, 206: { description: 'A byte range.', contentType: 'image/*' }, 302: 'Only with BLOB_STORE=s3 and S3_PRESIGN_MIN_BYTES: a whole download of at least that size, after the permission check, goes to a short-lived presigned URL of the bucket.', 304: 'Not modified.', 404: 'No such photo.', 416: 'The range is past the end.' },
    }),
    async (c) => {
      const rt = photoRuntime(c)
      const variant = c.req.param('variant') as PhotoVariant
      if (!PHOTO_VARIANTS.has(variant)) throw new Problem(problems.notFound())
      const blob = await rt.run((ctx) => photoBlob(ctx, c.req.param('photoId'), variant))
      return serveBlob(c, blob, { ...PHOTO_SERVING, disposition: variant === 'original' ? 'attachment' : undefined })
    },
  )

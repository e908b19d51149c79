import { Hono } from 'hono'
import type { BackendEnv } from '#server/http/env'
import { storeDirectPhotos } from '#server/domain/photos/direct'
import { MAX_FILE_BYTES } from '#server/domain/photos/photos'
import { operation } from '#server/http/contract'
import { fileParts, multipartForm, multipartLimit } from '#server/http/multipart'
import { photoRuntime } from './uploads'
import { PhotoListSchema } from '~/lib/schemas/photos-responses'

/**
 * POST /api/items/{itemId}/photos: the photo field of a
 * form sent without JavaScript, as multipart/form-data with one or more `file` (or `photos`)
 * parts. The body is parsed in memory, so the whole request is bounded by one file's limit.
 */

const DIRECT_BODY_LIMIT = MAX_FILE_BYTES + 64 * 1024
const MAX_FILES = 20

export const directUploadRoutes = new Hono<BackendEnv>().post(
  '/api/items/:itemId/photos',
  operation({
    summary: 'Add photos in one request (the forms without JavaScript)',
    tag: 'Photos',
    access: 'session',
    rawBody: { contentType: 'multipart/form-data', maxBytes: DIRECT_BODY_LIMIT, description: 'One or more file (or photos) parts' },
    responses: { 201: { description: 'The photos; all or nothing.', schema: PhotoListSchema }, 403: 'A read-only member.', 404: 'No such item.', 415: 'A file is not a photo.' },
  }),
  multipartLimit(DIRECT_BODY_LIMIT),
  async (c) => {
    const rt = photoRuntime(c)
    const form = await multipartForm(c, 'the photos, each as a file part,')
    const files = fileParts(form, ['file', 'photos'], { max: MAX_FILES, noun: 'photo' })
    const items = await storeDirectPhotos(rt, c.req.param('itemId'), files)
    return c.json({ items }, 201)
  },
)

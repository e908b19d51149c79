import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { runAdmin } from '#server/api/admin/run'
import { abortUploadAsAdmin, listUploads, uploadStats } from '#server/domain/admin/uploads'
import type { PhotoRuntime } from '#server/domain/photos/photos'
import { cursorParam, decodeCursor } from '#server/domain/tenancy/paging'
import type { BackendEnv } from '#server/http/env'
import { operation } from '#server/http/contract'
import { AdminUploadPageSchema, AdminUploadStatsSchema } from '~/lib/schemas/admin-responses'
import { optional, wholeNumber } from '#server/http/query'
import { blobStoreFor } from '#server/storage/blob-stores'
import { ADMIN_PAGE_SIZE, ADMIN_PAGE_SIZE_MAX, UPLOAD_PURPOSES, UPLOAD_STATES } from '~/lib/admin/uploads'

/** docs/admin/packages-and-uploads.md "Uploads": every upload session of the organisation, its figures, and abort; administrators only. */

const ListQuery = z.object({
  state: optional(z.enum(UPLOAD_STATES, { error: `state is one of ${UPLOAD_STATES.join(', ')}.` })),
  purpose: optional(z.enum(UPLOAD_PURPOSES, { error: `purpose is one of ${UPLOAD_PURPOSES.join(', ')}.` })),
  userId: optional(z.uuid({ error: 'userId is a user id.' })),
  after: cursorParam,
  limit: optional(wholeNumber('limit', ADMIN_PAGE_SIZE_MAX)).transform((v) => v ?? ADMIN_PAGE_SIZE),
})

/** Photo work (the blob store) run as the session's administrator: each `run` is one tenant transaction. */
function adminRuntime(c: Context<BackendEnv>): PhotoRuntime {
  const { config } = c.get('deps')
  const log = c.get('log')
  return {
    store: blobStoreFor(config),
    links: { publicUrl: config.publicUrl, linkSecret: config.sessionSecret },
    run: (work) => runAdmin(c, work),
    warn: (details, message) => log.warn(details, message),
  }
}

export const adminUploadRoutes = new Hono<BackendEnv>()
  .get(
    '/api/admin/uploads',
    operation({
      summary: 'Upload sessions of the organisation, newest first',
      description:
        'Filters: state (as the owner sees it: an open or completing session past its expiry is `expired`), purpose, userId; keyset paging with `after`, 50 a page by default. `stuck`: open, and no byte arrived for over an hour.',
      tag: 'Administration',
      access: 'admin',
      query: ListQuery,
      responses: {
        200: { description: 'A page of upload sessions.', schema: AdminUploadPageSchema },
        400: 'A filter or the cursor is not valid: see errors.',
        403: 'Not an administrator of the organisation.',
      },
    }),
    async (c) => {
      const query = c.req.valid('query')
      const after = decodeCursor(query.after)
      c.header('cache-control', 'no-store')
      return c.json(await runAdmin(c, (ctx) => listUploads(ctx, { state: query.state, purpose: query.purpose, userId: query.userId, after, limit: query.limit })))
    },
  )
  .get(
    '/api/admin/uploads/stats',
    operation({
      summary: 'Upload figures of the organisation: sessions per state, bytes completed and in progress',
      tag: 'Administration',
      access: 'admin',
      responses: {
        200: { description: 'Counts by state, and bytes, over every session of the organisation.', schema: AdminUploadStatsSchema },
        403: 'Not an administrator of the organisation.',
      },
    }),
    async (c) => {
      c.header('cache-control', 'no-store')
      return c.json(await runAdmin(c, (ctx) => uploadStats(ctx)))
    },
  )
  .delete(
    '/api/admin/uploads/:id',
    operation({
      summary: 'Abort an upload session (a stuck one): its staged bytes are freed and its owner can send no more',
      tag: 'Administration',
      access: 'admin',
      params: z.object({ id: z.string() }),
      responses: {
        204: 'Aborted (or already over: aborted, expired or failed).',
        403: 'Not an administrator of the organisation.',
        404: 'No such upload session.',
        409: 'The session is completing or completed (KR_UPLOAD_STATE).',
      },
    }),
    async (c) => {
      await abortUploadAsAdmin(adminRuntime(c), c.req.param('id'), { ip: c.get('ip'), correlationId: c.get('correlationId') })
      return c.body(null, 204)
    },
  )

import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { asMember } from '#server/domain/tenancy/context'
import { SYNC_PAGE_SIZE, syncChanges, type SyncChanges, type SyncSnapshot } from '#server/domain/reporting/sync'
import { syncCursorKey } from '#server/domain/reporting/sync-cursor'
import { operation, type OperationSpec } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { requireSession } from '#server/http/session'
import { SyncAnswerSchema } from '~/lib/schemas/reporting-responses'

const SyncHeaders = z.object({
  'x-device-id': z
    .string()
    .min(1)
    .max(200, 'The device id is at most 200 characters.')
    .optional()
    .meta({
      description: 'The registered deviceId of the calling device (POST /auth/devices/register): a revoked device is refused with 403 KR_DEVICE_REVOKED.',
    }),
})

const SyncQuery = z.object({
  cursor: z.string().max(200, 'The sync cursor is not valid.').optional(),
  limit: z.coerce.number().int().min(1).max(SYNC_PAGE_SIZE).optional(),
})

const syncOperation = (summary: string) =>
  operation({
    summary,
    tag: 'Sync',
    access: 'session',
    query: SyncQuery,
    headers: SyncHeaders,
    responses: {
      200: {
        description: 'A snapshot page (no cursor, or a snapshot continuation) or the changes after a revision cursor, with the next cursor and hasMore.',
        schema: SyncAnswerSchema satisfies z.ZodType<SyncSnapshot | SyncChanges>,
      },
      304: 'If-None-Match matched: nothing changed since that answer.',
      403: 'X-Device-Id names a device this user revoked (KR_DEVICE_REVOKED): delete the local copy.',
      410: 'The cursor is expired, foreign, tampered or ahead of the tenant: KR_SYNC_CURSOR_STALE, pull a snapshot.',
    },
  } satisfies OperationSpec)

const keys = new Map<string, Buffer>()
function keyFor(secret: string): Buffer {
  let key = keys.get(secret)
  if (!key) keys.set(secret, (key = syncCursorKey(secret)))
  return key
}

async function changes(c: Context<BackendEnv>, feed: 'all' | 'mobile', query: z.infer<typeof SyncQuery>, headers: z.infer<typeof SyncHeaders>) {
  const session = requireSession(c)
  const { db, now, config } = c.get('deps')
  const answer = await asMember(db, session, now(), (ctx) =>
    syncChanges(ctx, {
      feed,
      cursor: query.cursor,
      limit: query.limit,
      key: keyFor(config.sessionSecret),
      ifNoneMatch: c.req.header('if-none-match'),
      deviceId: headers['x-device-id'],
    }),
  )
  // Revalidate every time: a poll with If-None-Match answers 304 while nothing changed.
  c.header('cache-control', 'private, no-cache')
  if (answer.etag) c.header('etag', answer.etag)
  if (answer.status === 304) return c.body(null, 304)
  return c.json(answer.body)
}

/**
 * docs/site-reporting.md "Change log": a paged snapshot without a cursor, the changes after one; the
 * mobile path within its scope ("Mobile scope"). A cursor of one path is stale on the other.
 */
export const syncRoutes = new Hono<BackendEnv>()
  .get('/api/sync/changes', syncOperation('Changes of projects, reports and items after a cursor'), (c) =>
    changes(c, 'all', c.req.valid('query'), c.req.valid('header')),
  )
  .get(
    '/api/sync/changes-mobile',
    syncOperation(
      'What a phone on site needs: active projects, their active reports, open items and items closed in the last 14 days; what leaves that scope arrives as Deleted',
    ),
    (c) => changes(c, 'mobile', c.req.valid('query'), c.req.valid('header')),
  )

import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { asMember } from '#server/domain/reporting/context'
import { syncChanges } from '#server/domain/reporting/sync'
import { operation, type OperationSpec } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { requireSession } from '#server/http/session'

const SyncQuery = z.object({ cursor: z.string().max(200, 'The sync cursor is not valid.').optional() })

const syncOperation = (summary: string) =>
  operation({
    summary,
    tag: 'Sync',
    access: 'session',
    query: SyncQuery,
    responses: { 200: 'A snapshot (no cursor) or the changes after the cursor, with the next cursor.', 410: 'The cursor is too old: KR_SYNC_CURSOR_STALE, pull a snapshot.' },
  } satisfies OperationSpec)

async function changes(c: Context<BackendEnv>, cursor: string | undefined) {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  c.header('cache-control', 'no-store')
  return c.json(await asMember(db, session, now(), (ctx) => syncChanges(ctx, cursor)))
}

/**
 * docs/site-reporting.md "Change log": a snapshot without a cursor, the changes after one. The
 * mobile path answers the same; it exists so the apps' calls stay stable if the two ever differ.
 */
export const syncRoutes = new Hono<BackendEnv>()
  .get('/api/sync/changes', syncOperation('Changes of projects, reports and items after a cursor'), (c) => changes(c, c.req.valid('query').cursor))
  .get('/api/sync/changes-mobile', syncOperation('The same changes, for the mobile apps'), (c) => changes(c, c.req.valid('query').cursor))

import { Hono, type Context } from 'hono'
import type { BackendEnv } from '#server/http/env'
import { asMember } from '#server/domain/reporting/context'
import { syncChanges } from '#server/domain/reporting/sync'
import { requireSession } from '#server/http/session'

async function changes(c: Context<BackendEnv>) {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  const cursor = c.req.query('cursor')
  c.header('cache-control', 'no-store')
  return c.json(await asMember(db, session, now(), (ctx) => syncChanges(ctx, cursor)))
}

/**
 * docs/site-reporting.md "Change log": a snapshot without a cursor, the changes after one. The
 * mobile path answers the same; it exists so the apps' calls stay stable if the two ever differ.
 */
export const syncRoutes = new Hono<BackendEnv>().get('/api/sync/changes', changes).get('/api/sync/changes-mobile', changes)

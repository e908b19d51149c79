import { Hono } from 'hono'
import type { BackendEnv } from '#server/http/env'
import { asMember } from '#server/domain/reporting/context'
import { dashboardFigures } from '#server/domain/reporting/dashboard'
import { requireSession } from '#server/http/session'

/** docs/site-reporting.md: the dashboard's figures. */
export const dashboardRoutes = new Hono<BackendEnv>().get('/api/dashboard', async (c) => {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  return c.json(await asMember(db, session, now(), (ctx) => dashboardFigures(ctx)))
})

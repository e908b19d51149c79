import { Hono } from 'hono'
import type { BackendEnv } from '#server/http/env'
import { asMember } from '#server/domain/tenancy/context'
import { dashboardFigures } from '#server/domain/reporting/dashboard'
import { operation } from '#server/http/contract'
import { requireSession } from '#server/http/session'
import { DashboardFiguresSchema } from '~/lib/schemas/reporting-responses'

/** docs/site-reporting.md: the dashboard's figures. */
export const dashboardRoutes = new Hono<BackendEnv>().get('/api/dashboard', operation({ summary: 'The dashboard’s figures', tag: 'Dashboard', access: 'session', responses: { 200: { description: 'Counts by state, overdue, and recent activity.', schema: DashboardFiguresSchema } } }), async (c) => {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  return c.json(await asMember(db, session, now(), (ctx) => dashboardFigures(ctx)))
})

import { Hono } from 'hono'
import type { BackendEnv } from '#server/api/app'

/** docs/site-reporting.md: the dashboard calls. Not built yet. */
export const dashboardRoutes = new Hono<BackendEnv>()

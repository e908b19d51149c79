import { Hono } from 'hono'
import type { BackendEnv } from '#server/api/app'

/** docs/site-reporting.md: the reports calls. Not built yet. */
export const reportsRoutes = new Hono<BackendEnv>()

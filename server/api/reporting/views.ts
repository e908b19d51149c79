import { Hono } from 'hono'
import type { BackendEnv } from '#server/api/app'

/** docs/site-reporting.md: the views calls. Not built yet. */
export const viewsRoutes = new Hono<BackendEnv>()

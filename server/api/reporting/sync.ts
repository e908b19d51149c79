import { Hono } from 'hono'
import type { BackendEnv } from '#server/api/app'

/** docs/site-reporting.md: the sync calls. Not built yet. */
export const syncRoutes = new Hono<BackendEnv>()

import { Hono } from 'hono'
import type { BackendEnv } from '#server/api/app'

/** docs/site-reporting.md: the items calls. Not built yet. */
export const itemsRoutes = new Hono<BackendEnv>()

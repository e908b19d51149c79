import { Hono } from 'hono'
import type { BackendEnv } from '#server/api/app'

/** docs/site-reporting.md: the projects calls. Not built yet. */
export const projectsRoutes = new Hono<BackendEnv>()

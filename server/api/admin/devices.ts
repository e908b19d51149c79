import { Hono } from 'hono'
import type { BackendEnv } from '#server/http/env'

/** Issue 13 (docs/admin.md): not built yet. */
export const adminDeviceRoutes = new Hono<BackendEnv>()

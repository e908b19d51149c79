import { Hono } from 'hono'
import type { BackendEnv } from '#server/http/env'

/** docs/doc-control.md "API". */
export const transmittalPackageRoutes = new Hono<BackendEnv>()

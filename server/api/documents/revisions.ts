import { Hono } from 'hono'
import type { BackendEnv } from '#server/http/env'

/** docs/documents.md — being built (issue 11). */
export const revisionRoutes = new Hono<BackendEnv>()

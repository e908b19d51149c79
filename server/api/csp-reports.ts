import { Hono } from 'hono'
import type { BackendEnv } from '#server/http/env'

// Placeholder until the CSP report ingest lands (issue 15).
export const cspReportRoutes = new Hono<BackendEnv>()

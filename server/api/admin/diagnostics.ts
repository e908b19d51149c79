import { Hono } from 'hono'
import type { BackendEnv } from '#server/http/env'

// Placeholder until its issue-15 calls land.
export const adminDiagnosticsRoutes = new Hono<BackendEnv>()

import { Hono } from 'hono'
import type { BackendEnv } from '#server/http/env'

/** Spec §7 "Invites and tenants": organisations, their licence and seats (issue 16, H1). */
export const tenantRoutes = new Hono<BackendEnv>()

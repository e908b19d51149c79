import { Hono } from 'hono'
import type { BackendEnv } from '#server/http/env'

/** Spec §7 "Billing": GET /api/entitlements/me (issue 16, H1). */
export const entitlementRoutes = new Hono<BackendEnv>()

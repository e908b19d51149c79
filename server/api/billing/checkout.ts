import { Hono } from 'hono'
import type { BackendEnv } from '#server/http/env'

/** Spec §7 "Billing": the web checkout and the payment provider's webhooks (issue 16, H2). */
export const billingRoutes = new Hono<BackendEnv>()

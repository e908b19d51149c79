import { Hono } from 'hono'
import type { BackendEnv } from '#server/http/env'

/** Spec §7 "Billing": linking a subscription bought in a mobile app store (issue 16, H3). */
export const storeRoutes = new Hono<BackendEnv>()

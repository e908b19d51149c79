import { Hono } from 'hono'
import type { BackendEnv } from '#server/http/env'

/** Spec §7 "Auth": sign-in through an identity provider, OpenID Connect (issue 16, H4). */
export const oidcRoutes = new Hono<BackendEnv>()

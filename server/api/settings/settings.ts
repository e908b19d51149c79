import { Hono } from 'hono'
import type { BackendEnv } from '#server/http/env'

export const settingsRoutes = new Hono<BackendEnv>()

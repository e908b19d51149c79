import { sql } from 'drizzle-orm'
import { Hono } from 'hono'
import { Problem } from '#server/http/problem'
import { CLIENT_VERSION, CONTRACT_VERSION } from '~/lib/constants'
import { operation } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'

export const healthRoutes = new Hono<BackendEnv>().get('/api/health', operation({ summary: 'Liveness and database reachability', tag: 'Operations', access: 'public', responses: { 200: 'Up, with the client and contract versions.', 503: 'The database is not reachable.' } }), async (c) => {
  const { db, now } = c.get('deps')
  try {
    await db.execute(sql`select 1`)
  } catch (error) {
    c.get('log').error({ err: error }, 'health check: database unreachable')
    throw new Problem({ status: 503, title: 'Service Unavailable', detail: 'The database is not reachable.', code: 'KR_DB_UNREACHABLE' })
  }
  c.header('cache-control', 'no-store')
  return c.json({
    status: 'ok',
    database: 'reachable',
    clientVersion: CLIENT_VERSION,
    contractVersion: CONTRACT_VERSION,
    timeUtc: now().toISOString(),
  })
})

import { createHash } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { createMiddleware } from 'hono/factory'
import type { BackendEnv } from '#server/http/env'
import { idempotencyKeys } from '#server/db/schema'
import { HEADERS } from '~/lib/constants'
import { readCookie } from './cookies'
import { csrfNonce } from './csrf'
import { Problem } from './problem'

const TTL_MS = 24 * 60 * 60_000
const KEY = /^[\x21-\x7e]{1,255}$/
const REPLAYED_HEADERS = ['content-type', 'location', 'cache-control']

/**
 * Idempotency keys with Stripe's semantics (and the IETF httpapi draft): the first response for
 * (key, principal, route) is stored for 24 hours and replayed, errors included; the same key with
 * another body is 422; a retry while the first is still running is 409. A 5xx is not stored, so a
 * retry after a server failure runs again.
 */
export const idempotent = createMiddleware<BackendEnv>(async (c, next) => {
  const key = c.req.header(HEADERS.idempotencyKey)
  if (key === undefined) return next()
  if (!KEY.test(key)) {
    throw new Problem({ status: 400, title: 'Invalid request', detail: 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.', code: 'KR_IDEMPOTENCY_KEY_INVALID' })
  }
  const { db, now, config } = c.get('deps')
  const principal = c.get('session')?.userId ?? `anon:${csrfNonce(readCookie(c, config, 'csrf')) ?? c.get('ip')}`
  const route = `${c.req.method} ${c.req.path}`
  const requestHash = createHash('sha256').update(await c.req.text()).digest('base64url')
  const where = and(eq(idempotencyKeys.key, key), eq(idempotencyKeys.principal, principal), eq(idempotencyKeys.route, route))
  const at = now()

  const [existing] = await db.select().from(idempotencyKeys).where(where)
  if (existing && existing.expiresAt <= at) await db.delete(idempotencyKeys).where(where)
  else if (existing) return replay(existing, requestHash)

  const claimed = await db
    .insert(idempotencyKeys)
    .values({ key, principal, route, requestHash, expiresAt: new Date(at.getTime() + TTL_MS) })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key })
  if (claimed.length === 0) {
    const [raced] = await db.select().from(idempotencyKeys).where(where)
    if (raced) return replay(raced, requestHash)
  }

  await next()

  if (c.res.status >= 500) {
    await db.delete(idempotencyKeys).where(where)
    return
  }
  const stored = c.res.clone()
  const headers: Record<string, string> = {}
  for (const name of REPLAYED_HEADERS) {
    const value = stored.headers.get(name)
    if (value) headers[name] = value
  }
  await db
    .update(idempotencyKeys)
    .set({ state: 'done', responseStatus: stored.status, responseHeaders: headers, responseBody: await stored.text() })
    .where(where)
})

function replay(row: typeof idempotencyKeys.$inferSelect, requestHash: string): Response {
  if (row.requestHash !== requestHash) {
    throw new Problem({
      status: 422,
      title: 'Unprocessable Content',
      detail: 'This Idempotency-Key was already used with a different request body.',
      code: 'KR_IDEMPOTENCY_KEY_REUSED',
      remediation: 'Use a new key for a new request.',
    })
  }
  if (row.state !== 'done' || row.responseStatus === null) {
    throw new Problem({
      status: 409,
      title: 'Conflict',
      detail: 'A request with this Idempotency-Key is still being processed.',
      code: 'KR_IDEMPOTENCY_IN_PROGRESS',
      retryAfterSeconds: 1,
    })
  }
  const headers = new Headers(row.responseHeaders ?? {})
  headers.set('idempotent-replayed', 'true')
  return new Response(row.responseBody, { status: row.responseStatus, headers })
}

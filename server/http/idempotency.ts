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
/**
 * A claim still `running` this long after it was made belongs to a request that can no longer
 * finish (its instance was killed): a retry takes it over. Far past any call's statement and
 * query timeouts (server/db/client.ts), so a live request is never overtaken.
 */
export const ABANDONED_CLAIM_MS = 10 * 60_000
/** Recording an outcome the database refused (it was gone) is tried again this often, this many times. */
const SETTLE_RETRY_MS = 1_000
const SETTLE_ATTEMPTS = 120
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
  const abandoned = existing?.state === 'running' && existing.createdAt.getTime() <= at.getTime() - ABANDONED_CLAIM_MS
  // The old row is deleted only as it was read (its expiry, set by us to the millisecond, as the version).
  if (existing && (existing.expiresAt <= at || abandoned)) await db.delete(idempotencyKeys).where(and(where, eq(idempotencyKeys.expiresAt, existing.expiresAt)))
  else if (existing) return replay(existing, requestHash)

  const claimed = await db
    .insert(idempotencyKeys)
    .values({ key, principal, route, requestHash, createdAt: at, expiresAt: new Date(at.getTime() + TTL_MS) })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key })
  if (claimed.length === 0) {
    const [raced] = await db.select().from(idempotencyKeys).where(where)
    if (raced) return replay(raced, requestHash)
  }

  await next()

  const log = c.get('log')
  if (c.res.status >= 500) {
    await settle(() => db.delete(idempotencyKeys).where(where), log)
    return
  }
  const stored = c.res.clone()
  const headers: Record<string, string> = {}
  for (const name of REPLAYED_HEADERS) {
    const value = stored.headers.get(name)
    if (value) headers[name] = value
  }
  const outcome = { state: 'done', responseStatus: stored.status, responseHeaders: headers, responseBody: await stored.text() }
  await settle(() => db.update(idempotencyKeys).set(outcome).where(where), log)
})

type Warn = { warn(object: object, message: string): void }

/**
 * Records a request's outcome before its answer goes out. When the database went away after the
 * call's own work (docs/operations.md "Database outage"), the answer still goes out and the
 * record is tried again in the background until the database is back: a retry meanwhile gets 409
 * "still being processed", then the stored answer — never a second write, never a key stuck for a day.
 */
async function settle(record: () => Promise<unknown>, log: Warn): Promise<void> {
  try {
    await record()
  } catch {
    retrySettle(record, log, 2)
  }
}

function retrySettle(record: () => Promise<unknown>, log: Warn, attempt: number): void {
  setTimeout(() => {
    record().catch((error: unknown) => {
      if (attempt < SETTLE_ATTEMPTS) retrySettle(record, log, attempt + 1)
      else log.warn({ err: error }, 'an idempotency key could not be settled; a retry takes it over once abandoned')
    })
  }, SETTLE_RETRY_MS).unref()
}

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

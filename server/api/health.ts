import { sql } from 'drizzle-orm'
import { Hono } from 'hono'
import type { Config } from '#server/config'
import type { Database } from '#server/db/client'
import { checkRedis } from '#server/domain/config/checks'
import { isDraining } from '#server/http/draining'
import type { Logger } from '#server/http/logger'
import { Problem } from '#server/http/problem'
import { blobStoreFor } from '#server/storage/blob-stores'
import { CLIENT_VERSION, CONTRACT_VERSION } from '~/lib/constants'
import { operation } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { z } from 'zod'
import { LivenessSchema, NotReadyProblemSchema, ReadinessSchema, type ReadinessChecks } from '~/lib/schemas/health'

/** How long readiness waits for each part: well inside an orchestrator's probe timeout. */
const READY_TIMEOUT_MS = 2_000

const PART_NAMES: Record<keyof ReadinessChecks, string> = { database: 'the database', redis: 'Redis', blobStore: 'the blob store' }

/** GET /api/health's answer. */
const HealthSchema = z.object({ status: z.literal('ok'), database: z.literal('reachable'), clientVersion: z.string(), contractVersion: z.string(), timeUtc: z.iso.datetime() })

export const healthRoutes = new Hono<BackendEnv>()
  .get('/api/health', operation({ summary: 'Liveness and database reachability', tag: 'Operations', access: 'public', responses: { 200: { description: 'Up, with the client and contract versions.', schema: HealthSchema }, 503: 'The database is not reachable.' } }), async (c) => {
    const { db, now } = c.get('deps')
    try {
      await databaseAnswered(db)
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
  .get(
    '/api/health/live',
    operation({
      summary: 'Liveness: the process answers',
      description: 'Checks nothing else, so a database outage never makes an orchestrator restart a healthy process.',
      tag: 'Operations',
      access: 'public',
      responses: { 200: { description: 'The process answers.', schema: LivenessSchema } },
    }),
    (c) => {
      c.header('cache-control', 'no-store')
      return c.json({ status: 'ok' as const })
    },
  )
  .get(
    '/api/health/ready',
    operation({
      summary: 'Readiness: the database, Redis when configured and the blob store answer',
      description: `Each part is given ${READY_TIMEOUT_MS / 1000} s. A shutting-down instance answers 503 at once, so the load balancer stops sending it requests.`,
      tag: 'Operations',
      access: 'public',
      responses: {
        200: { description: 'Ready, with each part’s status.', schema: ReadinessSchema },
        503: { description: 'A part is down, or the instance is shutting down.', schema: NotReadyProblemSchema, contentType: 'application/problem+json' },
      },
    }),
    async (c) => {
      if (isDraining()) {
        throw new Problem({
          status: 503,
          title: 'Service Unavailable',
          detail: 'This instance is shutting down: it finishes the requests it has and takes no new ones.',
          code: 'KR_NOT_READY',
          remediation: 'Send requests to another instance; this one stops within its shutdown deadline.',
          extensions: { draining: true },
        })
      }
      const { config, db } = c.get('deps')
      const checks = await readiness(config, db, c.get('log'))
      const down = (Object.keys(checks) as (keyof ReadinessChecks)[]).filter((part) => checks[part] === 'down').map((part) => PART_NAMES[part])
      if (down.length > 0) {
        throw new Problem({
          status: 503,
          title: 'Service Unavailable',
          detail: `Not ready: ${down.join(' and ')} ${down.length === 1 ? 'is' : 'are'} down.`,
          code: 'KR_NOT_READY',
          remediation: 'The server log’s “readiness:” lines say why; the instance is ready again by itself once the part answers.',
          extensions: { draining: false, checks },
        })
      }
      c.header('cache-control', 'no-store')
      return c.json({ status: 'ready' as const, checks })
    },
  )

/**
 * How long GET /api/health trusts the database's last answer. A probe polling it many times a
 * second then costs the database nothing; readiness (/api/health/ready) asks the database every time.
 */
const HEALTH_DATABASE_FRESH_MS = 1_000

const lastAnswered = new WeakMap<Database, { at: number; probe: Promise<void> }>()

/**
 * The database answered `select 1` within the last second (callers in between share the answer and
 * a probe in flight); a failure is never kept, so the next call asks again.
 */
function databaseAnswered(db: Database): Promise<void> {
  const last = lastAnswered.get(db)
  if (last && performance.now() - last.at < HEALTH_DATABASE_FRESH_MS) return last.probe
  const probe = db.execute(sql`select 1`).then(() => undefined)
  const entry = { at: performance.now(), probe }
  lastAnswered.set(db, entry)
  probe.catch(() => {
    if (lastAnswered.get(db) === entry) lastAnswered.delete(db)
  })
  return probe
}

/** Every part at once, each within READY_TIMEOUT_MS; why a part is down goes to the log, not to the (public) answer. */
async function readiness(config: Config, db: Database, log: Logger): Promise<ReadinessChecks> {
  const probe = async (part: keyof ReadinessChecks, work: () => Promise<unknown>) => {
    try {
      await within(READY_TIMEOUT_MS, work())
      return 'up' as const
    } catch (error) {
      log.warn({ err: error, part }, `readiness: ${PART_NAMES[part]} is down`)
      return 'down' as const
    }
  }
  const { redisUrl } = config
  const [database, redis, blobStore] = await Promise.all([
    probe('database', () => db.execute(sql`select 1`)),
    redisUrl === undefined
      ? undefined
      : probe('redis', async () => {
          const result = await checkRedis(redisUrl, () => new Date(), READY_TIMEOUT_MS)
          if (!result.ok) throw new Error(result.message)
        }),
    probe('blobStore', () => blobStoreFor(config).check()),
  ])
  return { database, ...(redis && { redis }), blobStore }
}

function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
  })
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

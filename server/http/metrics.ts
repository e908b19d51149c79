import { createHash, timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sql } from 'drizzle-orm'
import type { Context } from 'hono'
import { matchedRoutes } from 'hono/route'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { Database, PoolStats } from '#server/db/client'
import { tenants } from '#server/db/schema'
import { rowsOf } from '#server/db/tenancy'
import { statementsSent } from '#server/db/statements'
import type { Hub } from '#server/realtime/hub'
import { isDraining } from './draining'
import type { Logger } from './logger'

/**
 * The instance's Prometheus metrics (GET /metrics, docs/operations.md "Metrics, health and
 * tracing"). A registry of our own, never prom-client's global one: a test process builds many
 * backends, and each must be able to register its own scrape-time gauges. What the process counts
 * (requests, job passes, upload bytes, query failures, memory and event loop) lives in one shared
 * registry; what an instance reads when scraped (its pool, its queues, its hub) in one per backend.
 */

const shared = new Registry()

const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests answered, by method, route template and status.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [shared],
})
const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time from a request to its response head, by method, route template and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [shared],
})
const jobPasses = new Counter({
  name: 'job_passes_total',
  help: 'Passes of background jobs: ok, failed, or skipped because another instance held the job’s lease.',
  labelNames: ['job', 'outcome'] as const,
  registers: [shared],
})
const jobDuration = new Histogram({
  name: 'job_pass_duration_seconds',
  help: 'How long the passes that ran (ok or failed) took.',
  labelNames: ['job'] as const,
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
  registers: [shared],
})
const uploadBytes = new Counter({
  name: 'upload_bytes_total',
  help: 'Bytes of uploads stored, by what the upload makes (photo, revision, support).',
  labelNames: ['kind'] as const,
  registers: [shared],
})
const queryFailures = new Counter({
  name: 'db_query_failures_total',
  help: 'Database queries that failed, by SQLSTATE or the driver’s error code (unique violations the API answers as conflicts included).',
  labelNames: ['code'] as const,
  registers: [shared],
})
new Counter({
  name: 'db_statements_total',
  help: 'SQL statements sent to the database, BEGIN and COMMIT included (what a page costs the database: bench/screen-cost.bench.ts).',
  registers: [shared],
  collect() {
    this.reset()
    this.inc(statementsSent())
  },
})
new Gauge({
  name: 'instance_draining',
  help: '1 once the instance has begun shutting down (readiness answers 503), else 0.',
  registers: [shared],
  collect() {
    this.set(isDraining() ? 1 : 0)
  },
})

let processMetricsOn = false

/** Memory, CPU, handles and event-loop lag (prom-client's defaults), once per process. */
function collectProcessMetrics(): void {
  if (processMetricsOn) return
  processMetricsOn = true
  collectDefaultMetrics({ register: shared, eventLoopMonitoringPrecision: EVENT_LOOP_PRECISION_MS })
}

/** The event-loop delay histogram's resolution. */
const EVENT_LOOP_PRECISION_MS = 10

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

/** `route` is a template (`/api/items/:itemId`), `page` or `static`, never a raw path: the series stay few. */
export function recordHttpRequest(method: string, route: string, status: number, seconds: number): void {
  const labels = { method: METHODS.has(method) ? method : 'OTHER', route, status: String(status) }
  httpRequests.inc(labels)
  httpDuration.observe(labels, seconds)
}

/**
 * The route template of the backend call a request reached (`/api/items/:itemId`), or
 * `unmatched` when no call answers its path: the last handler that ran, unless that was a
 * middleware (method ALL), which means the request fell through to the 404.
 */
export function routeOf(c: Context): string {
  const route = matchedRoutes(c)[c.req.routeIndex]
  return route && route.method !== 'ALL' ? route.path : 'unmatched'
}

/** One pass of a background job (server/jobs/periodic.ts): ran, failed, or skipped because another instance holds its lease. */
export function recordJobPass(name: string, outcome: 'ok' | 'failed' | 'skipped', seconds: number): void {
  jobPasses.inc({ job: name, outcome })
  if (outcome !== 'skipped') jobDuration.observe({ job: name }, seconds)
}

/** Bytes of an upload as they are stored (server/domain/photos/chunks.ts, which every upload goes through). */
export function recordUploadBytes(kind: string, bytes: number): void {
  if (bytes > 0) uploadBytes.inc({ kind }, bytes)
}

export function recordQueryFailure(code: string): void {
  queryFailures.inc({ code })
}

/** What only the starting entry knows: PostgreSQL's pool and the realtime hub. */
export type MetricSources = { poolStats?: (() => PoolStats) | undefined; hub?: Pick<Hub, 'stats' | 'messageCounts'> | undefined }

export type InstanceMetrics = {
  /** Adds the pool's and the hub's gauges (a backend on its own has neither). */
  observe(sources: MetricSources): void
  /** The exposition text: the process's metrics and this instance's. */
  scrape(): Promise<string>
}

/** A scrape waits this long for the queue counts; past it they are left out of that scrape. */
const QUEUE_QUERY_TIMEOUT_MS = 3_000

/** The metrics of the backend on `db`; its queue depths are read when scraped. */
export function createInstanceMetrics(db: Database, logger: Logger): InstanceMetrics {
  collectProcessMetrics()
  const own = new Registry()
  new Gauge({
    name: 'job_queue_depth',
    help: 'Work waiting, read when scraped: mail_outbox queued/sending/dead (gave up), transmittal_packages pending, upload_sessions open.',
    labelNames: ['queue', 'state'] as const,
    registers: [own],
    async collect() {
      this.reset()
      try {
        for (const { queue, state, count } of await withTimeout(queueDepths(db), QUEUE_QUERY_TIMEOUT_MS)) this.set({ queue, state }, count)
      } catch (error) {
        logger.warn({ err: error }, 'metrics: the queue depths could not be read; this scrape leaves them out')
      }
    },
  })
  /** A value read at scrape time. */
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [own],
      collect() {
        this.set(read())
      },
    })
  /** A total kept elsewhere (the hub counts), read at scrape time. */
  const counter = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers: [own],
      collect() {
        this.reset()
        this.inc(read())
      },
    })
  let observed = false
  return {
    observe({ poolStats, hub }) {
      if (observed) throw new Error('createInstanceMetrics: observe() may be called once')
      observed = true
      if (poolStats) {
        gauge('db_pool_connections', 'Connections PostgreSQL’s pool holds open (busy and idle).', () => poolStats().total)
        gauge('db_pool_idle_connections', 'Open connections not running a query.', () => poolStats().idle)
        gauge('db_pool_waiting_requests', 'Queries waiting for a connection (the pool is at its maximum).', () => poolStats().waiting)
        gauge('db_pool_max_connections', 'The pool’s maximum.', () => poolStats().max)
      }
      if (hub) {
        gauge('hub_connections', 'Realtime connections to this instance.', () => hub.stats().connections)
        gauge('hub_groups', 'Realtime groups with a member on this instance.', () => hub.stats().groups)
        counter('hub_messages_sent_total', 'Invocations this instance’s hub sent to its connections (a group message counts once per member reached).', () => hub.messageCounts().sent)
        counter('hub_messages_received_total', 'Invocations this instance’s hub received from its connections.', () => hub.messageCounts().received)
      }
    },
    scrape: () => Registry.merge([shared, own]).metrics(),
  }
}

type QueueDepth = { queue: string; state: string; count: number }

/**
 * Mail is untenanted: one query. Upload sessions and packages are tenant rows under forced
 * row-level security, which even the table owner cannot read across tenants: one transaction as
 * app_user walks the tenants, two short statements each, instead of a transaction per tenant.
 */
async function queueDepths(db: Database): Promise<QueueDepth[]> {
  const mail = rowsOf<{ status: string; count: number }>(
    await db.execute(sql`select status, count(*)::int as count from mail_outbox where status in ('queued', 'sending', 'dead') group by status`),
  )
  const tenantIds = (await db.select({ id: tenants.id }).from(tenants)).map((row) => row.id)
  let uploadsOpen = 0
  let packagesPending = 0
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local role app_user`)
    for (const tenantId of tenantIds) {
      await tx.execute(sql`select set_config('app.tenant_id', ${tenantId}, true)`)
      const [row] = rowsOf<{ uploads: number; packages: number }>(
        await tx.execute(
          sql`select (select count(*)::int from upload_sessions where state = 'open') as uploads,
                     (select count(*)::int from transmittal_packages where status in ('queued', 'running')) as packages`,
        ),
      )
      uploadsOpen += row?.uploads ?? 0
      packagesPending += row?.packages ?? 0
    }
  })
  const mailCount = (status: string) => mail.find((row) => row.status === status)?.count ?? 0
  return [
    { queue: 'mail_outbox', state: 'queued', count: mailCount('queued') },
    { queue: 'mail_outbox', state: 'sending', count: mailCount('sending') },
    { queue: 'mail_outbox', state: 'dead', count: mailCount('dead') },
    { queue: 'transmittal_packages', state: 'pending', count: packagesPending },
    { queue: 'upload_sessions', state: 'open', count: uploadsOpen },
  ]
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
  })
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

export type ScrapeAnswer = { status: 200 | 401; headers: Record<string, string>; body: string }

/**
 * GET /metrics, never public by default: with METRICS_TOKEN only for `Authorization: Bearer
 * <token>` (401 otherwise). Without a token only the metrics port (METRICS_PORT, bound where only
 * the scraper reaches) serves them; the main port then has no /metrics at all (server/web/front-door.ts).
 */
export async function answerScrape(metrics: InstanceMetrics, authorization: string | undefined, token: string | undefined): Promise<ScrapeAnswer> {
  if (token !== undefined && !bearerMatches(authorization, token)) {
    return {
      status: 401,
      headers: { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer realm="metrics"' },
      body: 'Send the metrics token: Authorization: Bearer <METRICS_TOKEN>.',
    }
  }
  return { status: 200, headers: { 'content-type': shared.contentType, 'cache-control': 'no-store' }, body: await metrics.scrape() }
}

/** Compared as SHA-256 digests in constant time, so neither the token's bytes nor its length leak through timing. */
function bearerMatches(authorization: string | undefined, token: string): boolean {
  const given = /^Bearer +(\S+)\s*$/i.exec(authorization ?? '')?.[1]
  if (given === undefined) return false
  const digest = (value: string) => createHash('sha256').update(value).digest()
  return timingSafeEqual(digest(given), digest(token))
}

export type MetricsListener = { port: number; close(): Promise<void> }

/** METRICS_PORT: a plain HTTP listener of its own that answers GET /metrics and nothing else. */
export async function startMetricsListener(options: { host: string; port: number; token: string | undefined; metrics: InstanceMetrics; logger: Logger }): Promise<MetricsListener> {
  const { host, port, metrics, logger } = options
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not Found: this port serves GET /metrics only.')
      return
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end()
      return
    }
    answerScrape(metrics, request.headers.authorization, options.token)
      .then((answer) => response.writeHead(answer.status, answer.headers).end(request.method === 'HEAD' ? undefined : answer.body))
      .catch((error: unknown) => {
        logger.error({ err: error }, 'metrics: the scrape failed')
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('The scrape failed; the server log says why.')
      })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(`The metrics listener could not start on ${host}:${port} (METRICS_HOST, METRICS_PORT): ${error.code ?? error.message}. Choose a free port.`, { cause: error })),
    )
    server.listen(port, host, () => resolve())
  })
  const bound = (server.address() as AddressInfo).port
  logger.info({ url: `http://${host}:${bound}/metrics`, token: options.token !== undefined }, 'metrics: listening')
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

import { randomUUID } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { mailOutbox } from '#server/db/schema'
import { openDatabase } from '#server/db/client'
import { createLogger } from '#server/http/logger'
import { createInstanceMetrics, startMetricsListener } from '#server/http/metrics'
import { startPeriodic } from '#server/jobs/periodic'
import { createFrontDoor, type WebHandler } from '#server/web/front-door'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { createUpload, pngImage, putChunk } from '#tests/helpers/photos'
import { client, startHub } from '#tests/realtime/hub-server'
import { createItem, createOrg, json } from '#tests/helpers/reporting-b'

const TOKEN = 'metrics-test-token-0123456789'
const logger = createLogger('silent')

let t: TestBackend
let clientDir: string

beforeAll(async () => {
  t = await createTestBackend({ env: { METRICS_TOKEN: TOKEN } })
  clientDir = await mkdtemp(path.join(os.tmpdir(), 'sp-metrics-client-'))
  await mkdir(path.join(clientDir, 'assets'))
  await writeFile(path.join(clientDir, 'assets', 'entry-Ab12.js'), 'console.log(1)')
})

afterAll(async () => {
  await t?.close()
  await rm(clientDir, { recursive: true, force: true })
})

/** A page that answers like the web app: 200 for /items, the app's own 404 page for anything else. */
const web: WebHandler = async (request) => (new URL(request.url).pathname === '/items' ? new Response('<p>items</p>') : new Response('<p>No such page</p>', { status: 404 }))

/** The front door with METRICS_TOKEN, or (null) without one. */
function frontDoor(token: string | null = TOKEN) {
  return createFrontDoor({ config: { ...t.config, metrics: { ...t.config.metrics, token: token ?? undefined } }, logger, backend: t.backend, web, clientDir })
}

async function scrape(): Promise<string> {
  const response = await frontDoor().request('http://portal.test/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
  return response.text()
}

/** The value of the first sample of `name` whose labels include `labels`; undefined when there is none. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (match?.[1] !== name) continue
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]))
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3])
  }
  return undefined
}

test('API calls are counted by route template, never by raw path; a path no call answers is "unmatched"', async () => {
  const id = randomUUID()
  const item = { method: 'GET', route: '/api/items/:id', status: '401' }
  const unmatched = { method: 'GET', route: 'unmatched', status: '404' }
  const before = await scrape()

  await t.fetch(`/api/items/${id}`)
  await t.fetch(`/api/items/${randomUUID()}`)
  await t.fetch(`/api/no-such-call-${id}`)

  const after = await scrape()
  expect((sample(after, 'http_requests_total', item) ?? 0) - (sample(before, 'http_requests_total', item) ?? 0)).toBe(2)
  expect((sample(after, 'http_requests_total', unmatched) ?? 0) - (sample(before, 'http_requests_total', unmatched) ?? 0)).toBe(1)
  expect((sample(after, 'http_request_duration_seconds_count', item) ?? 0) - (sample(before, 'http_request_duration_seconds_count', item) ?? 0)).toBe(2)
  expect(sample(after, 'http_request_duration_seconds_bucket', { ...item, le: '+Inf' })).toBeGreaterThanOrEqual(2)
  expect(after).not.toContain(id)
})

test('pages count as "page" and files as "static" at the front door; calls it passes on count once, in the backend', async () => {
  const door = frontDoor()
  const page = { method: 'GET', route: 'page', status: '200' }
  const file = { method: 'GET', route: 'static', status: '200' }
  const call = { method: 'GET', route: '/api/health/live', status: '200' }
  const before = await scrape()

  expect((await door.request('http://portal.test/items')).status).toBe(200)
  expect((await door.request('http://portal.test/assets/entry-Ab12.js')).status).toBe(200)
  expect((await door.request('http://portal.test/api/health/live')).status).toBe(200)

  const after = await scrape()
  const delta = (labels: Record<string, string>) => (sample(after, 'http_requests_total', labels) ?? 0) - (sample(before, 'http_requests_total', labels) ?? 0)
  expect([delta(page), delta(file), delta(call)]).toEqual([1, 1, 1])
  expect(sample(after, 'http_requests_total', { route: '/metrics', status: '200' })).toBeGreaterThanOrEqual(1)
})

test('job passes, queue depths, upload bytes and the process are in the scrape', async () => {
  const before = await scrape()
  const job = startPeriodic({ name: 'metrics-test', intervalMs: 3_600_000, logger, runAtStart: true, lease: 'per-instance', pass: async () => {} })
  await job.stop()
  const failing = startPeriodic({ name: 'metrics-test', intervalMs: 3_600_000, logger, runAtStart: true, lease: 'per-instance', pass: () => Promise.reject(new Error('test failure')) })
  await failing.stop()
  await t.db.insert(mailOutbox).values({ toAddress: `metrics-${randomUUID()}@example.test`, template: 'test', subject: 'Metrics', textBody: 'Queued' })
  const org = await createOrg(t)
  const itemRow = await createItem(org.writer, org.reportId)
  const image = pngImage(10, 8, 3)
  const session = await createUpload(org.writer, itemRow.id, image)
  await json(await putChunk(org.writer, session.id, 0, image.subarray(0, 100)))

  const after = await scrape()
  const delta = (name: string, labels: Record<string, string>) => (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0)
  expect(delta('job_passes_total', { job: 'metrics-test', outcome: 'ok' })).toBe(1)
  expect(delta('job_passes_total', { job: 'metrics-test', outcome: 'failed' })).toBe(1)
  expect(delta('job_pass_duration_seconds_count', { job: 'metrics-test' })).toBe(2)
  expect(delta('job_queue_depth', { queue: 'mail_outbox', state: 'queued' })).toBe(1)
  expect(delta('job_queue_depth', { queue: 'upload_sessions', state: 'open' })).toBe(1)
  expect(sample(after, 'job_queue_depth', { queue: 'transmittal_packages', state: 'pending' })).toBe(0)
  expect(delta('upload_bytes_total', { kind: 'photo' })).toBe(100)
  expect(sample(after, 'process_resident_memory_bytes')).toBeGreaterThan(0)
  expect(sample(after, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0)
  expect(sample(after, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0)
  expect(sample(after, 'instance_draining')).toBe(0)
})

test('a failed query is counted by its SQLSTATE', async () => {
  const before = await scrape()
  await expect(t.db.execute(sql`select * from no_such_table`)).rejects.toThrow()
  const after = await scrape()
  expect((sample(after, 'db_query_failures_total', { code: '42P01' }) ?? 0) - (sample(before, 'db_query_failures_total', { code: '42P01' }) ?? 0)).toBe(1)
})

test('the hub’s connections, groups and messages are in the scrape of the instance that runs it', async () => {
  const server = await startHub()
  const alice = client(server.url)
  const bob = client(server.url, { token: 'bob-token' })
  try {
    const metrics = createInstanceMetrics(t.db, logger)
    metrics.observe({ hub: server.hub })
    await alice.start()
    await bob.start()
    await alice.invoke('Join', 'site')
    await bob.invoke('Join', 'site')
    const received = new Promise((resolve) => bob.on('Receive', resolve))
    // To the group but its sender: one message sent, to Bob.
    await alice.invoke('Broadcast', 'site', 'hello')
    expect(await received).toBe('hello')

    const text = await metrics.scrape()
    expect(sample(text, 'hub_connections')).toBe(2)
    expect(sample(text, 'hub_groups')).toBe(1)
    expect(sample(text, 'hub_messages_received_total')).toBe(3)
    expect(sample(text, 'hub_messages_sent_total')).toBe(1)
    // A backend on its own (no hub, and PGlite or PostgreSQL alike no pool it was told of) has neither.
    const alone = await t.backend.metrics.scrape()
    expect(sample(alone, 'hub_connections')).toBeUndefined()
    expect(sample(alone, 'db_pool_connections')).toBeUndefined()
  } finally {
    await alice.stop()
    await bob.stop()
    await server.close()
  }
})

test.skipIf(!process.env.TEST_DATABASE_URL)('on PostgreSQL the pool’s connections are in the scrape', async () => {
  const handle = await openDatabase({ dataDir: t.config.dataDir, databaseUrl: t.config.databaseUrl, migrationsFolder: path.resolve('server/db/migrations') })
  try {
    const metrics = createInstanceMetrics(handle.db, logger)
    metrics.observe({ poolStats: handle.poolStats })
    await handle.db.execute(sql`select 1`)
    const text = await metrics.scrape()
    expect(sample(text, 'db_pool_max_connections')).toBe(10)
    expect(sample(text, 'db_pool_connections')).toBeGreaterThanOrEqual(1)
    expect(sample(text, 'db_pool_idle_connections')).toBeGreaterThanOrEqual(0)
    expect(sample(text, 'db_pool_waiting_requests')).toBe(0)
  } finally {
    await handle.close()
  }
})

test('without the token, or with a wrong one, /metrics answers 401 and no metrics', async () => {
  const door = frontDoor()
  const missing = await door.request('http://portal.test/metrics')
  const wrong = await door.request('http://portal.test/metrics', { headers: { authorization: `Bearer ${TOKEN}x` } })
  const basic = await door.request('http://portal.test/metrics', { headers: { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` } })

  for (const response of [missing, wrong, basic]) {
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="metrics"')
    expect(await response.text()).not.toContain('http_requests_total')
  }
})

test('with no METRICS_TOKEN the main port has no /metrics: it is an unknown page like any other', async () => {
  const response = await frontDoor(null).request('http://portal.test/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })

  expect(response.status).toBe(404)
  expect(await response.text()).toBe('<p>No such page</p>')
})

test('METRICS_PORT: a listener of its own serves GET /metrics (open without a token, 401 without it when one is set) and nothing else', async () => {
  const open = await startMetricsListener({ host: '127.0.0.1', port: 0, token: undefined, metrics: t.backend.metrics, logger })
  const guarded = await startMetricsListener({ host: '127.0.0.1', port: 0, token: TOKEN, metrics: t.backend.metrics, logger })
  try {
    const scraped = await fetch(`http://127.0.0.1:${open.port}/metrics`)
    expect(scraped.status).toBe(200)
    expect(await scraped.text()).toContain('# TYPE http_requests_total counter')
    expect((await fetch(`http://127.0.0.1:${open.port}/api/health`)).status).toBe(404)
    expect((await fetch(`http://127.0.0.1:${open.port}/metrics`, { method: 'POST' })).status).toBe(405)

    expect((await fetch(`http://127.0.0.1:${guarded.port}/metrics`)).status).toBe(401)
    expect((await fetch(`http://127.0.0.1:${guarded.port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200)
  } finally {
    await open.close()
    await guarded.close()
  }
})

test('a port in use stops the listener with a message naming METRICS_PORT', async () => {
  const first = await startMetricsListener({ host: '127.0.0.1', port: 0, token: undefined, metrics: t.backend.metrics, logger })
  try {
    await expect(startMetricsListener({ host: '127.0.0.1', port: first.port, token: undefined, metrics: t.backend.metrics, logger })).rejects.toThrow(/METRICS_PORT.*EADDRINUSE/)
  } finally {
    await first.close()
  }
})

import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, expect, test, vi } from 'vitest'
import { createLogger } from '#server/http/logger'
import { startTracing, tracingOn, type Tracing } from '#server/http/tracing'
import { createFrontDoor } from '#server/web/front-door'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { tenants } from '#server/db/schema'

const logger = createLogger('silent')

type OtlpValue = { stringValue?: string; intValue?: string | number }
type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes: { key: string; value: OtlpValue }[] }
type OtlpExport = { resourceSpans: { resource: { attributes: { key: string; value: OtlpValue }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[] }

/** OTLP span kinds (the protocol's numbers). */
const SERVER = 2
const CLIENT = 3

/** A tiny OTLP/HTTP receiver: keeps every JSON export POSTed to /v1/traces. */
async function startReceiver() {
  const exports: OtlpExport[] = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces') exports.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport)
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports,
    spans: () => exports.flatMap((e) => e.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

let t: TestBackend
let receiver: Awaited<ReturnType<typeof startReceiver>>
let tracing: Tracing | undefined

beforeAll(async () => {
  t = await createTestBackend()
  receiver = await startReceiver()
})

afterEach(async () => {
  await tracing?.shutdown()
  tracing = undefined
  vi.unstubAllEnvs()
  receiver.exports.length = 0
})

afterAll(async () => {
  await t?.close()
  await receiver?.close()
})

function attribute(span: OtlpSpan, key: string): string | number | undefined {
  const value = span.attributes.find((a) => a.key === key)?.value
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue))
}

/** Tracing on, as ops turn it on: the standard variables, read by the SDK from the environment. */
async function startOtlp(): Promise<Tracing> {
  vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', receiver.url)
  vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', 'http/json')
  const started = await startTracing(process.env, logger)
  if (!started) throw new Error('tracing did not start')
  return started
}

test('an API call is a server span named after its route, with a database span of the same trace; both carry the correlation id', async () => {
  tracing = await startOtlp()
  const correlationId = `trace-${randomUUID()}`

  const response = await t.fetch('/api/health', { headers: { 'x-correlation-id': correlationId } })
  expect(response.status).toBe(200)
  await tracing.flush()

  const spans = receiver.spans()
  const server = spans.find((s) => s.kind === SERVER && s.name === 'GET /api/health')
  expect(server).toBeDefined()
  expect(attribute(server!, 'http.route')).toBe('/api/health')
  expect(attribute(server!, 'http.response.status_code')).toBe(200)
  expect(attribute(server!, 'correlation_id')).toBe(correlationId)
  const query = spans.find((s) => s.kind === CLIENT && attribute(s, 'db.query.text') === 'select 1')
  expect(query).toMatchObject({ traceId: server!.traceId, parentSpanId: server!.spanId, name: 'SELECT' })
  expect(attribute(query!, 'db.system.name')).toBe('postgresql')
  expect(attribute(query!, 'correlation_id')).toBe(correlationId)
  const service = receiver.exports[0]?.resourceSpans[0]?.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue
  expect(service).toBe('site-portal')
})

test('one trace from a page through its loader’s API call to the database, every span with the page’s correlation id', async () => {
  tracing = await startOtlp()
  const door = createFrontDoor({
    config: t.config,
    logger,
    backend: t.backend,
    clientDir: undefined,
    // A loader's call, as the web app makes it through the context's transport. Readiness, which
    // asks the database every time (liveness may answer from its last second's check).
    web: async (request, context) => new Response(`health ${(await context.backend(new Request(new URL('/api/health/ready', request.url)))).status}`),
  })

  const response = await door.request('http://portal.test/items')
  expect(await response.text()).toBe('health 200')
  const correlationId = response.headers.get('x-correlation-id')
  expect(correlationId).toMatch(/^[0-9a-f-]{36}$/)
  await tracing.flush()

  const spans = receiver.spans()
  const page = spans.find((s) => s.kind === SERVER && s.name === 'GET page')
  expect(page).toBeDefined()
  const call = spans.find((s) => s.kind === CLIENT && s.parentSpanId === page!.spanId)
  expect(call).toMatchObject({ traceId: page!.traceId, name: 'GET' })
  expect(attribute(call!, 'url.path')).toBe('/api/health/ready')
  const api = spans.find((s) => s.kind === SERVER && s.parentSpanId === call!.spanId)
  expect(api).toMatchObject({ traceId: page!.traceId, name: 'GET /api/health/ready' })
  const query = spans.find((s) => s.parentSpanId === api!.spanId && attribute(s, 'db.query.text') === 'select 1')
  expect(query?.traceId).toBe(page!.traceId)
  for (const span of [page!, call!, api!, query!]) expect(attribute(span, 'correlation_id'), span.name).toBe(correlationId)
})

test('queries outside a request (background jobs) make no spans', async () => {
  tracing = await startOtlp()

  await t.db.select().from(tenants).limit(1)
  await tracing.flush()

  expect(receiver.spans()).toEqual([])
})

test('with no OTEL_* variables, with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, tracing stays off and nothing is exported', async () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }
  for (const env of [{}, { ...endpoint, OTEL_SDK_DISABLED: 'true' }, { ...endpoint, OTEL_TRACES_EXPORTER: 'none' }]) {
    expect(await startTracing(env, logger), JSON.stringify(env)).toBeUndefined()
  }
  expect(tracingOn()).toBe(false)

  expect((await t.fetch('/api/health')).status).toBe(200)

  expect(receiver.exports).toEqual([])
})

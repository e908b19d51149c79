import {
  context,
  createContextKey,
  diag,
  DiagLogLevel,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api'
import {
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_SYSTEM_NAME,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
  ATTR_URL_PATH,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from '@opentelemetry/semantic-conventions'
import { PgPreparedQuery } from 'drizzle-orm/pg-core'
import { CLIENT_VERSION } from '~/lib/constants'
import type { BackendTransport } from '~/lib/load-context'
import type { Logger } from './logger'
import { recordQueryFailure } from './metrics'
import { countStatements } from '#server/db/statements'

/**
 * OpenTelemetry tracing (docs/operations.md "Metrics, health and tracing"): off unless the standard
 * OTEL_* variables ask for OTLP; then one trace runs from a page through the API calls its loaders
 * make to the database, every span carrying the request's correlation id. Everything else (service
 * name, sampler, headers, batching) the SDK reads from the same variables. Off, each hook is one
 * boolean check.
 */

let on = false
const tracer = () => trace.getTracer('site-portal', CLIENT_VERSION)
const CORRELATION_ID = createContextKey('site-portal correlation id')
/** The attribute every span carries. */
export const CORRELATION_ATTRIBUTE = 'correlation_id'

export type Tracing = {
  /** Sends the spans ended so far (tests; shutdown does it too). */
  flush(): Promise<void>
  shutdown(): Promise<void>
}

/** On with OTEL_TRACES_EXPORTER=otlp, or an OTLP endpoint and no other exporter named; OTEL_SDK_DISABLED=true wins. */
export function tracingWanted(env: Record<string, string | undefined>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false
  const exporters = env.OTEL_TRACES_EXPORTER?.split(',').map((name) => name.trim().toLowerCase())
  if (exporters) return exporters.includes('otlp')
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
}

/**
 * Starts the process's tracer provider when `env` asks for it; undefined when tracing stays off.
 * The exporter speaks OTLP over HTTP with JSON bodies (an OpenTelemetry Collector's port 4318).
 * The SDK, the exporter and the resource detectors are loaded only then: off, a start does not
 * compile them (importing the SDK and the exporter took about 0.2 CPU-s).
 */
export async function startTracing(env: Record<string, string | undefined>, logger: Logger): Promise<Tracing | undefined> {
  if (!tracingWanted(env)) return undefined
  const [{ OTLPTraceExporter }, { defaultResource, detectResources, envDetector, resourceFromAttributes }, { BatchSpanProcessor, NodeTracerProvider }] = await Promise.all([
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-node'),
  ])
  if (on) throw new Error('Tracing is already started in this process.')
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL
  if (protocol !== undefined && protocol !== 'http/json') {
    logger.warn({ protocol }, 'tracing: spans are sent as OTLP http/json whatever OTEL_EXPORTER_OTLP_PROTOCOL says; point the endpoint at the collector’s HTTP port (4318)')
  }
  diag.setLogger(
    {
      error: (message) => logger.warn({ unit: 'tracing' }, `tracing: ${message}`),
      warn: (message) => logger.warn({ unit: 'tracing' }, `tracing: ${message}`),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    DiagLogLevel.WARN,
  )
  // Our name and version unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'site-portal', [ATTR_SERVICE_VERSION]: CLIENT_VERSION }))
    .merge(detectResources({ detectors: [envDetector] }))
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] })
  // The global provider, the AsyncLocalStorage context (a span follows its request across awaits) and W3C traceparent.
  provider.register()
  instrumentQueries()
  on = true
  logger.info({ service: resource.attributes[ATTR_SERVICE_NAME] }, 'tracing: on (OTLP)')
  return {
    flush: () => provider.forceFlush(),
    async shutdown() {
      on = false
      await provider.shutdown()
      trace.disable()
      context.disable()
      propagation.disable()
      diag.disable()
    },
  }
}

export function tracingOn(): boolean {
  return on
}

const headerGetter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
}
const headerSetter: TextMapSetter<Headers> = { set: (headers, key, value) => headers.set(key, value) }

/**
 * Runs `handle` in a server span for `request`, child of the request's `traceparent` when it has
 * one (a page's loader calling the API over HTTP) or of the active span (in process). `handle`
 * names the span once it knows the route and answers the response; 5xx marks the span failed.
 */
export async function inServerSpan(request: Request, correlationId: string, handle: (span: Span) => Promise<Response>): Promise<Response> {
  const parent = propagation.extract(context.active(), request.headers, headerGetter)
  const span = tracer().startSpan(
    request.method,
    { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: request.method, [ATTR_URL_PATH]: new URL(request.url).pathname, [CORRELATION_ATTRIBUTE]: correlationId } },
    parent,
  )
  return answered(span, () => context.with(trace.setSpan(parent, span).setValue(CORRELATION_ID, correlationId), () => handle(span)))
}

/** Runs an HTTP exchange under `span`: its status recorded (5xx an error), a throw recorded, the span ended either way. */
async function answered(span: Span, exchange: () => Promise<Response>): Promise<Response> {
  try {
    const response = await exchange()
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, response.status)
    if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
    return response
  } catch (error) {
    failed(span, error)
    throw error
  } finally {
    span.end()
  }
}

/** Names a server span after its route template (`GET /api/items/:itemId`, `GET page`). */
export function nameServerSpan(span: Span, method: string, route: string): void {
  span.updateName(`${method} ${route}`)
  span.setAttribute(ATTR_HTTP_ROUTE, route)
}

/** A page's transport to the backend with a client span per call, its context sent as `traceparent` (in process or over HTTP alike). */
export function tracedTransport(transport: BackendTransport): BackendTransport {
  return async (request) => {
    if (!on) return transport(request)
    const span = tracer().startSpan(request.method, {
      kind: SpanKind.CLIENT,
      attributes: { [ATTR_HTTP_REQUEST_METHOD]: request.method, [ATTR_URL_PATH]: new URL(request.url).pathname, ...correlationAttribute() },
    })
    const active = trace.setSpan(context.active(), span)
    // Set on the call's own request, which the page's API client made for this call alone (and
    // which may be a light one that a web Request cannot copy: app/lib/api/in-process-request.ts).
    propagation.inject(active, request.headers, headerSetter)
    return answered(span, () => context.with(active, () => transport(request)))
  }
}

function correlationAttribute(): Attributes {
  const id = context.active().getValue(CORRELATION_ID)
  return typeof id === 'string' ? { [CORRELATION_ATTRIBUTE]: id } : {}
}

function failed(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error))
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) })
}

type QueryWithCache = (this: unknown, queryString: string, params: unknown[], query: () => Promise<unknown>) => Promise<unknown>

let queriesInstrumented = false

/**
 * Every query of both drivers (node-postgres, in and out of transactions, and PGlite) passes
 * drizzle's `PgPreparedQuery.queryWithCache` with its SQL text around the driver's call: wrapped
 * once per process, it counts statements and failures for GET /metrics and, while tracing is on and a request's
 * span is active, times the query in a span of its own. Queries outside a request (background
 * jobs) make no spans: a job polling every second would otherwise fill the trace store.
 */
export function instrumentQueries(): void {
  if (queriesInstrumented) return
  const prototype = PgPreparedQuery.prototype as unknown as { queryWithCache?: QueryWithCache }
  const original = prototype.queryWithCache
  if (typeof original !== 'function') throw new Error('drizzle-orm no longer has PgPreparedQuery.queryWithCache: update server/http/tracing.ts for its new version.')
  queriesInstrumented = true
  prototype.queryWithCache = async function (queryString, params, query) {
    countStatements(1, queryString)
    if (!on || !trace.getSpan(context.active())) {
      try {
        return await original.call(this, queryString, params, query)
      } catch (error) {
        recordQueryFailure(errorCode(error))
        throw error
      }
    }
    const operation = /^\s*([A-Za-z]+)/.exec(queryString)?.[1]?.toUpperCase() ?? 'QUERY'
    const span = tracer().startSpan(operation, {
      kind: SpanKind.CLIENT,
      attributes: { [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL, [ATTR_DB_OPERATION_NAME]: operation, [ATTR_DB_QUERY_TEXT]: queryString, ...correlationAttribute() },
    })
    try {
      return await context.with(trace.setSpan(context.active(), span), () => original.call(this, queryString, params, query))
    } catch (error) {
      recordQueryFailure(errorCode(error))
      failed(span, error)
      throw error
    } finally {
      span.end()
    }
  }
}

/** The SQLSTATE (or Node's code) of a failed query: drizzle wraps the driver's error in `cause`. */
function errorCode(error: unknown): string {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; current = (current as { cause?: unknown }).cause, depth += 1) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code)) return code
  }
  return 'unknown'
}

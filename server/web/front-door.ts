import { randomBytes } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import path from 'node:path'
import { serveStatic } from '@hono/node-server/serve-static'
import { Hono, type Context } from 'hono'
import { compression } from './compression'
import type { AppLoadContext } from 'react-router'
import { correlationIdFor, type Backend } from '#server/api/app'
import type { Config } from '#server/config'
import { CSP_ENDPOINT_NAME, cspReportAddress, cspReportToken } from '#server/domain/observability/csp'
import { clientAddress } from '#server/http/client-address'
import { createRequestScope } from '#server/domain/tenancy/request-scope'
import type { AuthSession } from '#server/domain/auth/sessions'
import type { Logger } from '#server/http/logger'
import { answerScrape, recordHttpRequest } from '#server/http/metrics'
import { inServerSpan, nameServerSpan, tracedTransport, tracingOn } from '#server/http/tracing'
import { warnIfProxyUntrusted } from '#server/http/proxy-warning'
import { keptTextAnswer, setAnswerHeader, wholeBody } from '#server/http/whole-answer'
import { HEADERS } from '~/lib/constants'
import type { BackendTransport } from '~/lib/load-context'
import type { Liveness } from '~/lib/schemas/health'

const LIVENESS_PATH = '/api/health/live'
const LIVENESS_BODY = JSON.stringify({ status: 'ok' } satisfies Liveness)
const LIVENESS_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }
/** A file at the top of build/client: one segment with an extension (favicon.svg, sw.js). */
const ROOT_FILE = /^\/[^/]+\.[A-Za-z0-9]+$/

export type WebHandler = (request: Request, context: AppLoadContext) => Promise<Response>

/**
 * `route` is what GET /metrics counts the request as: a page, the scrape itself, or (unset) a
 * static file; 'backend' when the backend answered, which counts its calls by route template itself.
 */
type FrontEnv = { Bindings: { incoming: IncomingMessage }; Variables: { route: 'backend' | 'page' | '/metrics' } }

export type FrontDoorOptions = {
  config: Config
  logger: Logger
  backend: Backend
  web: WebHandler
  /** build/client in production; undefined in development, where Vite serves the assets. */
  clientDir: string | undefined
}

/**
 * One origin for everything: static assets, the backend's calls and the web app's pages.
 * `/api`, `/hub` and `/telemetry` always reach the backend; `/auth/*` and `/invite/*` reach it
 * when the request asks for JSON, and the web app's routes otherwise (DESIGN.md).
 */
export function createFrontDoor(options: FrontDoorOptions): Hono<FrontEnv> {
  const { config, backend, web, clientDir } = options
  const webLogger = options.logger.child({ unit: 'web', component: 'web' })
  const app = new Hono<FrontEnv>()
  const remoteTransport = config.backendUrl ? createRemoteTransport(config.backendUrl) : undefined

  // The liveness probe, asked every few seconds by an orchestrator or the container's health
  // check, is answered here before anything else runs: it says only that the process answers
  // (docs/operations.md). The backend's own route stays for the contract and in-process calls.
  app.get(LIVENESS_PATH, (c) => {
    recordHttpRequest(c.req.method, LIVENESS_PATH, 200, 0)
    return c.body(LIVENESS_BODY, 200, LIVENESS_HEADERS)
  })

  app.use(async (c, next) => {
    // Pages and form posts reach the backend without the header: warn here, where every request passes.
    warnIfProxyUntrusted(options, c.req.raw)
    const started = performance.now()
    await next()
    const route = c.get('route') ?? 'static'
    if (route !== 'backend') recordHttpRequest(c.req.method, route, c.res.status, (performance.now() - started) / 1000)
  })
  app.use(compression())

  // Only with METRICS_TOKEN: without it the path is an unknown page like any other, so nothing
  // shows that metrics exist (METRICS_PORT serves them apart).
  const metricsToken = config.metrics.token
  if (metricsToken !== undefined) {
    app.get('/metrics', async (c) => {
      c.set('route', '/metrics')
      const answer = await answerScrape(backend.metrics, c.req.header('authorization'), metricsToken)
      return c.body(answer.body, answer.status, answer.headers)
    })
  }

  // Before the static files: a call never looks for a file on disk first.
  const toBackend = (c: Context<FrontEnv>) => {
    c.set('route', 'backend')
    return remoteTransport
      ? remoteTransport(c.req.raw, remoteAddressOf(c, config))
      : backend.fetch(c.req.raw, { remoteAddress: remoteAddressOf(c, config) })
  }

  app.all('/api/*', toBackend)
  app.all('/hub/*', toBackend)
  app.all('/telemetry/*', toBackend)

  if (clientDir) {
    // Hashed file names: cached for good. The build wrote .br and .gz beside each text asset
    // (scripts/build-compress.mjs); serveStatic picks the one the browser accepts and sets
    // Content-Encoding and Vary, so compression() above leaves it alone.
    app.use(
      '/assets/*',
      async (c, next) => {
        await next()
        if (c.res.status === 200) setAnswerHeader(c, 'cache-control', 'public, max-age=31536000, immutable')
      },
      serveStatic({ root: path.relative(process.cwd(), clientDir), precompressed: true }),
    )
    // A file the build does not have (a source map, kept in build/sourcemaps; a chunk of an older
    // build) is a plain 404, never a page of the web app.
    app.all('/assets/*', (c) => c.text('Not Found', 404))
    // Field mode's service worker (decision 009): always checked for a new build.
    app.use('/sw.js', async (c, next) => {
      await next()
      if (c.res.status === 200) setAnswerHeader(c, 'cache-control', 'no-cache')
    })
    // The files at the top of build/client (favicon.svg); a page's path is never looked for on disk.
    const rootFiles = serveStatic({
      root: path.relative(process.cwd(), clientDir),
      onFound: (_path, c) => {
        c.header('cache-control', 'public, max-age=3600')
      },
    })
    app.use('*', (c, next) => (ROOT_FILE.test(c.req.path) ? rootFiles(c, next) : next()))
  }

  app.all('*', async (c) => {
    const { pathname } = new URL(c.req.url)
    if ((pathname.startsWith('/auth/') || pathname.startsWith('/invite/')) && wantsJson(c.req.raw)) {
      return toBackend(c)
    }
    c.set('route', 'page')
    const remoteAddress = remoteAddressOf(c, config)
    // The page's id, carried by every call its loaders and action make: one search finds them all.
    const correlationId = correlationIdFor(c.req.header(HEADERS.correlationId))
    const page = async () => {
      const cspNonce = randomBytes(16).toString('base64')
      // The page's CSP reports are its organisation's when the page is drawn for a signed-in member.
      let reportTenant: string | undefined
      // The page's one request context: its calls read the session once and share one tenant
      // transaction for their reads, and a read already answered is not asked again.
      const scope = createRequestScope<AuthSession | undefined>()
      const transport: BackendTransport = watchSessionTenant(
        readOnce(
          tracedTransport(
            withCorrelationId(correlationId, remoteTransport ? (request) => remoteTransport(request, remoteAddress) : (request) => backend.fetch(request, { remoteAddress, scope })),
          ),
        ),
        (tenantId) => (reportTenant = tenantId),
      )
      const response = await web(c.req.raw, {
        backend: transport,
        cspNonce,
        remoteAddress,
        // Identity-provider sign-in (issue 16) is per organisation: the sign-in page always offers the
        // company-account form, and the backend says plainly when an organisation has no provider.
        oidcEnabled: true,
        logger: webLogger,
      })
      const reportTo = cspReportAddress(reportTenant ? cspReportToken(config.sessionSecret, reportTenant, new Date()) : null)
      return withSecurityHeaders(response, cspNonce, config, reportTo, correlationId)
    }
    if (!tracingOn()) return page()
    return inServerSpan(c.req.raw, correlationId, (span) => {
      nameServerSpan(span, c.req.method, 'page')
      return page()
    })
  })

  return app
}

function remoteAddressOf(c: Context<FrontEnv>, config: Config): string | undefined {
  return clientAddress(c.req.raw, c.env?.incoming?.socket?.remoteAddress, config.trustProxy)
}

/** A JSON call (fetch from an island or another client), as opposed to a page or an HTML form post. */
export function wantsJson(request: Request): boolean {
  const contentType = request.headers.get('content-type') ?? ''
  if (contentType.includes('application/json')) return true
  const accept = request.headers.get('accept') ?? ''
  return accept.includes('application/json') && !accept.includes('text/html')
}

const SESSION_PATHS = new Set(['/auth/session', '/auth/session/refresh', '/auth/demo-session'])

/** Tells `seen` the organisation of a fully signed-in session the page's loaders received. */
function watchSessionTenant(transport: BackendTransport, seen: (tenantId: string) => void): BackendTransport {
  return async (request) => {
    const response = await transport(request)
    if (response.ok && SESSION_PATHS.has(new URL(request.url).pathname) && (response.headers.get('content-type') ?? '').includes('json')) {
      try {
        const session = (await response.clone().json()) as { tenantId?: unknown; requiresMfa?: unknown }
        if (typeof session.tenantId === 'string' && session.requiresMfa !== true) seen(session.tenantId)
      } catch {
        // Not a session: the page reports without an organisation.
      }
    }
    return response
  }
}

/**
 * A page's loaders often ask the same thing (the root and a screen both read the session; the
 * items screen reads the views twice): the first call is made, the others get a copy of its
 * answer. Only while nothing has changed: an unsafe call forgets every answer, and an answer other
 * than 2xx is not kept (a retry asks again).
 */
export function readOnce(transport: BackendTransport): BackendTransport {
  const answers = new Map<string, Promise<KeptAnswer>>()
  return async (request) => {
    if (request.method !== 'GET') {
      answers.clear()
      return transport(request)
    }
    const key = `${request.url}\n${request.headers.get('cookie') ?? ''}\n${request.headers.get('accept') ?? ''}`
    let answer = answers.get(key)
    if (!answer) {
      answer = transport(request).then(keepAnswer)
      answers.set(key, answer)
      answer.then(
        (kept) => {
          if (!kept.ok) answers.delete(key)
        },
        () => answers.delete(key),
      )
    }
    return (await answer).copy()
  }
}

/** An answer `readOnce` hands out again: a fresh Response for each caller. */
type KeptAnswer = { ok: boolean; copy: () => Response }

/**
 * A JSON answer (what the loaders' calls get) is read once and each caller gets a new Response of
 * that text: a clone tees the body's stream, and a clone read cost about 80 µs more than a new
 * Response of the text (issue 37). Any other answer (a file, a stream) is cloned, never read here.
 */
async function keepAnswer(response: Response): Promise<KeptAnswer> {
  if (!response.ok || !(response.headers.get('content-type') ?? '').includes('json')) return { ok: response.ok, copy: () => response.clone() }
  // As the backend made it, not through a stream (server/http/whole-answer.ts).
  const held = wholeBody(response)
  const text = typeof held === 'string' ? held : await response.text()
  const { status, headers } = response
  return { ok: true, copy: () => keptTextAnswer(text, { status, headers: new Headers(headers) }) }
}

/**
 * The page's correlation id on each of its calls, unless the call names its own. Set on the call's
 * own request (the page's API client makes one per call), not on a copy.
 */
function withCorrelationId(correlationId: string, transport: BackendTransport): BackendTransport {
  return (request) => {
    if (!request.headers.has(HEADERS.correlationId)) request.headers.set(HEADERS.correlationId, correlationId)
    return transport(request)
  }
}

/** With BACKEND_URL the same calls go over HTTP to a remote backend. */
function createRemoteTransport(backendUrl: string) {
  const base = new URL(backendUrl)
  return async (request: Request, remoteAddress: string | undefined): Promise<Response> => {
    const url = new URL(request.url)
    const target = new URL(url.pathname + url.search, base)
    const headers = new Headers(request.headers)
    if (remoteAddress) headers.set('x-forwarded-for', remoteAddress)
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD'
    return fetch(target, {
      method: request.method,
      headers,
      body: hasBody ? request.body : null,
      redirect: 'manual',
      signal: request.signal,
      ...(hasBody && { duplex: 'half' }),
    } as RequestInit)
  }
}

function withSecurityHeaders(response: Response, nonce: string, config: Config, reportTo: string, correlationId: string): Response {
  const dev = config.env === 'development'
  const secure = config.publicUrl.startsWith('https://')
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    // Vite injects styles at runtime in development only; in production the page's one inline
    // stylesheet (app/entry.server.tsx) carries the nonce.
    dev ? "style-src 'self' 'unsafe-inline'" : `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data: blob:",
    "font-src 'self'",
    dev ? "connect-src 'self' ws: wss:" : "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    // Violations (server/api/csp-reports.ts). Chromium reads Reporting-Endpoints on https only, and
    // with report-to present ignores report-uri: so report-to over https, report-uri alone over http.
    `report-uri ${reportTo}`,
    ...(secure ? [`report-to ${CSP_ENDPOINT_NAME}`] : []),
  ].join('; ')
  const headers = new Headers(response.headers)
  headers.set('content-security-policy', csp)
  if (secure) headers.set('reporting-endpoints', `${CSP_ENDPOINT_NAME}="${reportTo}"`)
  headers.set('x-content-type-options', 'nosniff')
  headers.set('referrer-policy', 'strict-origin-when-cross-origin')
  headers.set('x-frame-options', 'DENY')
  headers.set('cross-origin-opener-policy', 'same-origin')
  headers.set('permissions-policy', 'camera=(self), geolocation=(), microphone=()')
  if (secure) headers.set('strict-transport-security', 'max-age=31536000')
  if (!headers.has('cache-control')) headers.set('cache-control', 'no-store')
  headers.set(HEADERS.correlationId, correlationId)
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
}

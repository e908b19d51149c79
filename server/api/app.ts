import { randomUUID } from 'node:crypto'
import { Hono, type Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { ZodError } from 'zod'
import { getCookie } from 'hono/cookie'
import { databaseUnavailable, isDatabaseOutage } from '#server/db/outage'
import { VISITOR_ID } from '#server/domain/observability/events'
import type { BackendBindings, BackendDeps, BackendEnv } from '#server/http/env'
import { fieldErrors, Problem, problemResponse, problems, type ProblemInit } from '#server/http/problem'
import { HEADERS, VISITOR_COOKIE } from '~/lib/constants'
import { clientAddress } from '#server/http/client-address'
import { csrfProtection } from '#server/http/csrf'
import { createInstanceMetrics, recordHttpRequest, routeOf, type InstanceMetrics } from '#server/http/metrics'
import { inServerSpan, instrumentQueries, nameServerSpan, tracingOn } from '#server/http/tracing'
import { logStatements } from '#server/db/statements'
import { setPasswordHashCost } from '#server/domain/auth/passwords'
import { resolveSession } from '#server/http/session'
import { readScope } from '#server/domain/tenancy/request-scope'
import { auditRoutes } from './admin/audit'
import { adminConfigRoutes } from './admin/config'
import { emailTemplateRoutes } from './admin/email-templates'
import { mailOutboxRoutes } from './admin/mail-outbox'
import { adminTelemetryRoutes } from './admin/telemetry'
import { adminDiagnosticsRoutes } from './admin/diagnostics'
import { adminSchemaIncidentRoutes } from './admin/schema-incidents'
import { adminCspReportRoutes } from './admin/csp-reports'
import { adminLogRoutes } from './admin/logs'
import { adminFrontendErrorRoutes } from './admin/frontend-errors'
import { cspReportRoutes } from './csp-reports'
import { adminDeviceRoutes } from './admin/devices'
import { inviteRoutes } from './admin/invites'
import { joinRequestRoutes } from './admin/join-requests'
import { adminOverviewRoutes } from './admin/overview'
import { adminPackageRoutes } from './admin/packages'
import { supportRoutes } from './admin/support'
import { adminUploadRoutes } from './admin/uploads'
import { adminUserRoutes } from './admin/users'
import { accountRoutes } from './auth/account-routes'
import { deviceRoutes } from './auth/device-routes'
import { sessionRoutes } from './auth/session-routes'
import { contractRoutes } from './contract'
import { healthRoutes } from './health'
import { deliverableRoutes } from './doc-control/deliverables'
import { docControlAttentionRoutes } from './doc-control/attention'
import { mailStatusRoutes } from './settings/mail-status'
import { inboxRoutes } from './doc-control/inbox'
import { transmittalPackageRoutes } from './doc-control/packages'
import { sharedTransmittalRoutes } from './doc-control/shared-transmittals'
import { partyRoutes } from './doc-control/parties'
import { setRoutes } from './doc-control/sets'
import { docControlSummaryRoutes } from './doc-control/summary'
import { workflowTemplateRoutes } from './doc-control/templates'
import { transmittalRoutes } from './doc-control/transmittals'
import { transmittalNumberingRoutes } from './doc-control/transmittal-numbering'
import { workflowRoutes } from './doc-control/workflows'
import { documentsRoutes } from './documents/documents'
import { drawingRoutes } from './documents/drawings'
import { revisionRoutes } from './documents/revisions'
import { documentSearchRoutes } from './documents/search'
import { directUploadRoutes } from './photos/direct-upload'
import { photosRoutes } from './photos/photos'
import { uploadsRoutes } from './photos/uploads'
import { dashboardRoutes } from './reporting/dashboard'
import { itemsRoutes } from './reporting/items'
import { exportRoutes } from './exports/exports'
import { exportJobRoutes } from './exports/export-jobs'
import { projectsRoutes } from './reporting/projects'
import { reportsRoutes } from './reporting/reports'
import { syncRoutes } from './reporting/sync'
import { preferenceRoutes } from './settings/preferences'
import { notificationRoutes } from './notifications/notifications'
import { settingsRoutes } from './settings/settings'
import { viewsRoutes } from './reporting/views'
import { telemetryRoutes } from './telemetry'
import { tenantRoutes } from './licensing/tenants'
import { entitlementRoutes } from './licensing/entitlements'
import { billingRoutes } from './billing/checkout'
import { storeRoutes } from './billing/store'
import { oidcRoutes } from './auth/oidc-routes'
import { setAnswerHeader } from '#server/http/whole-answer'

/** The detail of a 404 for a path no route answers (as opposed to a missing record). */
export const NO_SUCH_CALL = 'There is no such call in this API.'

const CORRELATION_ID = /^[A-Za-z0-9._:-]{8,64}$/

/** The X-Correlation-Id a request brought, when it is a sensible one; otherwise a new id. */
export function correlationIdFor(incoming: string | null | undefined): string {
  return incoming && CORRELATION_ID.test(incoming) ? incoming : randomUUID()
}

export type Backend = {
  app: Hono<BackendEnv>
  fetch: (request: Request, bindings?: BackendBindings) => Promise<Response>
  /** GET /metrics of this instance (server/http/metrics.ts); the front door and the metrics port answer it. */
  metrics: InstanceMetrics
}

export function createBackend(deps: BackendDeps): Backend {
  // strict: false — a path with a trailing slash is the same call (spec §7 writes `/api/projects/`).
  const app = new Hono<BackendEnv>({ strict: false })
  const metrics = createInstanceMetrics(deps.db, deps.logger)
  instrumentQueries()
  logStatements(deps.config.metrics.statementLog)
  setPasswordHashCost(deps.config.passwordHashCost)

  app.use(async (c, next) => {
    const correlationId = correlationIdFor(c.req.header(HEADERS.correlationId))
    // The browser's visitor id (the kr-vis cookie of the telemetry batchers), so a person's
    // frontend errors and their requests' lines are found by one search.
    const visitor = getCookie(c, VISITOR_COOKIE)
    const log = deps.logger.child({ correlationId, visitorId: visitor !== undefined && VISITOR_ID.test(visitor) ? visitor : undefined })
    c.set('deps', deps)
    c.set('correlationId', correlationId)
    c.set('log', log)
    c.set('ip', clientAddress(c.req.raw, c.env?.remoteAddress, deps.config.trustProxy) ?? 'unknown')
    const started = performance.now()
    await next()
    // In place: c.header() would copy the answer for each (server/http/whole-answer.ts).
    setAnswerHeader(c, HEADERS.correlationId, correlationId)
    // Every answer is JSON or a file of a declared type; private data is never stored by a cache
    // unless its route said how (photos: private, revalidated by ETag).
    setAnswerHeader(c, 'x-content-type-options', 'nosniff')
    if (!c.res.headers.has('cache-control')) setAnswerHeader(c, 'cache-control', 'private, no-store')
    recordHttpRequest(c.req.method, routeOf(c), c.res.status, (performance.now() - started) / 1000)
    // The session was resolved by a later middleware: the line names the organisation (only its
    // administrators see it in the logs tail, docs/observability.md "Logs") and the person.
    const session = c.get('session')
    log.info(
      { method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(performance.now() - started), tenantId: session?.tenantId, userId: session?.userId },
      'request',
    )
  })

  // Tracing (off unless OTEL_* asks for it): a server span per call, named after its route template.
  app.use(async (c, next) => {
    if (!tracingOn()) return next()
    await inServerSpan(c.req.raw, c.get('correlationId'), async (span) => {
      await next()
      nameServerSpan(span, c.req.method, routeOf(c))
      return c.res
    })
  })

  // A page's calls in process share one request context (server/domain/tenancy/request-scope.ts):
  // its reads join one tenant transaction; an unsafe call first ends it and forgets the session read.
  app.use(async (c, next) => {
    const scope = c.env?.scope
    if (!scope) return next()
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return readScope.run(scope.reads, next)
    await scope.settle()
    return next()
  })
  app.use(resolveSession)
  // The lines a call writes itself (an unhandled error among them) name the organisation too.
  app.use(async (c, next) => {
    const session = c.get('session')
    if (session) c.set('log', c.get('log').child({ tenantId: session.tenantId, userId: session.userId }))
    await next()
  })
  app.use(csrfProtection)

  app.route('/', healthRoutes)
  app.route('/', sessionRoutes)
  app.route('/', accountRoutes)
  app.route('/', deviceRoutes)
  app.route('/', projectsRoutes)
  app.route('/', reportsRoutes)
  app.route('/', exportRoutes)
  app.route('/', exportJobRoutes)
  app.route('/', itemsRoutes)
  app.route('/', viewsRoutes)
  app.route('/', dashboardRoutes)
  app.route('/', syncRoutes)
  app.route('/', uploadsRoutes)
  app.route('/', photosRoutes)
  app.route('/', directUploadRoutes)
  // Search first: /api/documents/search is not a document id.
  app.route('/', documentSearchRoutes)
  app.route('/', documentsRoutes)
  app.route('/', revisionRoutes)
  app.route('/', drawingRoutes)
  app.route('/', workflowTemplateRoutes)
  app.route('/', workflowRoutes)
  app.route('/', inboxRoutes)
  app.route('/', docControlAttentionRoutes)
  app.route('/', mailStatusRoutes)
  app.route('/', setRoutes)
  app.route('/', transmittalRoutes)
  app.route('/', transmittalNumberingRoutes)
  app.route('/', transmittalPackageRoutes)
  app.route('/', sharedTransmittalRoutes)
  app.route('/', partyRoutes)
  app.route('/', deliverableRoutes)
  app.route('/', docControlSummaryRoutes)
  // The Administration area (issue 13, docs/admin.md).
  app.route('/', adminOverviewRoutes)
  app.route('/', adminUserRoutes)
  app.route('/', inviteRoutes)
  app.route('/', joinRequestRoutes)
  app.route('/', adminDeviceRoutes)
  app.route('/', auditRoutes)
  app.route('/', adminPackageRoutes)
  app.route('/', adminUploadRoutes)
  app.route('/', supportRoutes)
  // Administration part 2 and Settings (issue 14, docs/admin/configuration.md, docs/settings.md).
  app.route('/', adminConfigRoutes)
  app.route('/', emailTemplateRoutes)
  app.route('/', mailOutboxRoutes)
  app.route('/', settingsRoutes)
  app.route('/', preferenceRoutes)
  app.route('/', notificationRoutes)
  // Observability (issue 15): the browser's telemetry and errors, and their ingest stats.
  app.route('/', telemetryRoutes)
  app.route('/', adminTelemetryRoutes)
  app.route('/', adminFrontendErrorRoutes)
  app.route('/', adminDiagnosticsRoutes)
  app.route('/', adminSchemaIncidentRoutes)
  app.route('/', cspReportRoutes)
  app.route('/', adminCspReportRoutes)
  app.route('/', adminLogRoutes)
  // Tenancy, licences, seats, billing and identity-provider sign-in (issue 16, docs/licensing.md).
  app.route('/', tenantRoutes)
  app.route('/', entitlementRoutes)
  app.route('/', billingRoutes)
  app.route('/', storeRoutes)
  app.route('/', oidcRoutes)
  app.route(
    '/',
    contractRoutes(() => app.routes, deps.config.maxBodyBytes),
  )

  // Through the context, so cookies and headers set before the failure (a fresh CSRF token) survive.
  const respond = async (c: Context<BackendEnv>, init: ProblemInit) => {
    const response = problemResponse(init, c.req.path, c.get('correlationId') ?? randomUUID())
    return c.body(await response.text(), response.status as ContentfulStatusCode, Object.fromEntries(response.headers))
  }

  app.notFound((c) => respond(c, problems.notFound(NO_SUCH_CALL)))

  app.onError((error, c) => {
    if (error instanceof Problem) return respond(c, error.init)
    if (error instanceof ZodError) return respond(c, problems.badRequest('The request is not valid.', fieldErrors(error)))
    // PostgreSQL gone or going away: a 503 the client may retry, not a bug (server/db/outage.ts).
    if (deps.config.databaseUrl && isDatabaseOutage(error, deps.config.databaseUrl)) {
      ;(c.get('log') ?? deps.logger).warn({ err: error }, 'database unavailable')
      return respond(c, databaseUnavailable())
    }
    ;(c.get('log') ?? deps.logger).error({ err: error }, 'unhandled error')
    return respond(c, {
      status: 500,
      title: 'Internal Server Error',
      detail: 'The server encountered an error.',
      code: 'KR_INTERNAL',
      remediation: 'Retry later; if it continues, contact support with the correlation id.',
    })
  })

  return { app, fetch: (request, bindings = {}) => Promise.resolve(app.fetch(request, bindings)), metrics }
}

import { Hono, type Context } from 'hono'
import { getCookie } from 'hono/cookie'
import { createMiddleware } from 'hono/factory'
import type { AuthSession } from '#server/domain/auth/sessions'
import { userStatusProblem } from '#server/domain/auth/sign-in'
import {
  ERROR_BODY_MAX_BYTES,
  FrontendErrorBatchSchema,
  IngestAnswerSchema,
  TELEMETRY_BODY_MAX_BYTES,
  TelemetryBatchSchema,
  VISITOR_ID,
} from '#server/domain/observability/events'
import { ingestFrontendErrors, ingestTelemetry, recordDropped, type IngestKind, type IngestResult, type Sender } from '#server/domain/observability/ingest'
import { hitAddressLimit, hitVisitorLimit, ingestThrottled } from '#server/domain/observability/limits'
import { storeWebIncidents } from '#server/domain/observability/schema-incidents'
import { operation } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { Problem } from '#server/http/problem'
import { requireSession } from '#server/http/session'
import { HEADERS, VISITOR_COOKIE } from '~/lib/constants'
import { WebSchemaIncidentBatchSchema, WebSchemaIncidentReceiptSchema } from '~/lib/schemas/web-schema-incidents'

/**
 * Spec §7 "Telemetry": the browser's batchers (app/islands/telemetry) send here. Bodies are JSON
 * under either content type a beacon may carry (application/json, text/plain). Each answer is
 * 202 `{ accepted, dropped }`: an event that does not fit is dropped and counted, never failing
 * the rest. Rows and counters: server/domain/observability/ingest.ts.
 */

const TAG = 'Telemetry'

const INGEST_PATHS: Record<string, IngestKind> = {
  '/telemetry/events': 'events',
  '/telemetry/public-events': 'events',
  '/telemetry/public-errors': 'errors',
}

const BODY_NOTE = 'JSON, sent as application/json or as text/plain;charset=UTF-8 (navigator.sendBeacon).'

const ingestResponses = (extra: Record<number, string> = {}) => ({
  202: { description: 'Stored: how many events were accepted, and how many dropped as not valid.', schema: IngestAnswerSchema },
  400: 'The body is not a batch (not JSON, no events array, too many events).',
  413: 'The body is over the call’s limit.',
  429: 'Too many batches from this browser (kr-vis) or address: retryAfterSeconds says when to send again.',
  ...extra,
})

/** A fully signed-in session (what requireSession accepts), or none. */
function signedIn(c: Context<BackendEnv>): AuthSession | undefined {
  const session = c.get('session')
  if (!session || session.requiresMfa || userStatusProblem(session.userStatus)) return undefined
  return session
}

/** The organisation a call's drops are counted for: public-events never carries a session. */
function countedTenant(c: Context<BackendEnv>, path: string): string | null {
  return path === '/telemetry/public-events' ? null : (signedIn(c)?.tenantId ?? null)
}

/**
 * Before the body is read: the address limit. After the answer: a refused body (400, 413) is
 * counted as one dropped, since its events could not be read.
 */
const ingestGuard = createMiddleware<BackendEnv>(async (c, next) => {
  const path = c.req.path.replace(/\/$/, '')
  const kind = INGEST_PATHS[path]
  if (!kind || c.req.method !== 'POST') return next()
  const { db, now } = c.get('deps')
  const wait = await hitAddressLimit(db, c.get('ip'), now())
  if (wait > 0) {
    await recordDropped(db, countedTenant(c, path), kind, 'rate-limited', 1, now())
    throw ingestThrottled(wait)
  }
  await next()
  const reason = c.res.status === 413 ? 'too-large' : c.res.status === 400 ? 'invalid' : undefined
  if (reason) await recordDropped(db, countedTenant(c, path), kind, reason, 1, now())
})

type Ingest<E> = (db: BackendEnv['Variables']['deps']['db'], batch: { sender: Sender | null; visitorId: string | undefined; events: ReadonlyArray<E | null>; now: Date }) => Promise<IngestResult | 'not-a-member'>

/**
 * The visitor limit (kr-vis, else the first usable correlation id of the batch), then the batch.
 * A sender whose membership is no longer active is refused (`refuse`), or stored without the
 * organisation (`untenanted`).
 */
async function accept<E extends { correlationId?: string | null | undefined }>(
  c: Context<BackendEnv>,
  kind: IngestKind,
  sender: Sender | null,
  events: ReadonlyArray<E | null>,
  ingest: Ingest<E>,
  endedMembership: 'refuse' | 'untenanted' = 'refuse',
): Promise<IngestResult> {
  const { db, now } = c.get('deps')
  const cookie = getCookie(c, VISITOR_COOKIE)
  const visitorId = cookie !== undefined && VISITOR_ID.test(cookie) ? cookie : undefined
  const limitKey = visitorId ?? events.find((event) => event?.correlationId && VISITOR_ID.test(event.correlationId))?.correlationId ?? undefined
  if (limitKey) {
    const wait = await hitVisitorLimit(db, kind, limitKey, now())
    if (wait > 0) {
      await recordDropped(db, sender?.tenantId ?? null, kind, 'rate-limited', events.length, now())
      throw ingestThrottled(wait)
    }
  }
  const result = await ingest(db, { sender, visitorId, events, now: now() })
  if (result !== 'not-a-member') return result
  if (endedMembership === 'refuse') throw membershipInactive()
  const untenanted = await ingest(db, { sender: null, visitorId, events, now: now() })
  return untenanted === 'not-a-member' ? { accepted: 0, dropped: events.length } : untenanted
}

function membershipInactive(): Problem {
  return new Problem({ status: 403, title: 'Forbidden', detail: 'Your membership of this organisation is not active.', code: 'KR-TENANT-MEMBERSHIP-INACTIVE' })
}

export const telemetryRoutes = new Hono<BackendEnv>()
  .use('/telemetry/*', ingestGuard)
  .post(
    '/telemetry/events',
    operation({
      summary: 'Telemetry events of the signed-in user',
      description: `${BODY_NOTE} Stored with the user and organisation. Without a session 401: the browser sends the batch to /telemetry/public-events instead. No CSRF token needed (a beacon cannot send one), but the request must come from this site.`,
      tag: TAG,
      access: 'session',
      body: TelemetryBatchSchema,
      maxBodyBytes: TELEMETRY_BODY_MAX_BYTES,
      textRuleByItem: true,
      responses: ingestResponses({ 401: 'Not signed in: send to /telemetry/public-events.', 403: 'The account or membership is not active, or the request came from another site.' }),
    }),
    async (c) => {
      const session = requireSession(c)
      const sender = { tenantId: session.tenantId, userId: session.userId }
      return c.json(await accept(c, 'events', sender, c.req.valid('json').events, ingestTelemetry), 202)
    },
  )
  .post(
    '/telemetry/public-events',
    operation({
      summary: 'Telemetry events without a session',
      description: `${BODY_NOTE} The fall-back after a 401 or 403 from /telemetry/events; stored without user or organisation.`,
      tag: TAG,
      access: 'public',
      body: TelemetryBatchSchema,
      maxBodyBytes: TELEMETRY_BODY_MAX_BYTES,
      textRuleByItem: true,
      responses: ingestResponses(),
    }),
    async (c) => {
      return c.json(await accept(c, 'events', null, c.req.valid('json').events, ingestTelemetry), 202)
    },
  )
  .post(
    '/telemetry/public-errors',
    operation({
      summary: 'Frontend errors',
      description: `${BODY_NOTE} Stored with the user and organisation when the request carries a valid session, else without. Each error gets a fingerprint: SHA-256 of its message and top three stack frames without positions or query strings.`,
      tag: TAG,
      access: 'public',
      body: FrontendErrorBatchSchema,
      maxBodyBytes: ERROR_BODY_MAX_BYTES,
      textRuleByItem: true,
      responses: ingestResponses(),
    }),
    async (c) => {
      const session = signedIn(c)
      const sender = session ? { tenantId: session.tenantId, userId: session.userId } : null
      // An error is worth keeping whoever sent it: an ended membership stores it without the organisation.
      return c.json(await accept(c, 'errors', sender, c.req.valid('json').events, ingestFrontendErrors, 'untenanted'), 202)
    },
  )
  .post(
    '/telemetry/schema-incidents',
    operation({
      summary: 'Answers the browser found not matching the contract',
      description:
        'The browser’s API client checks the answers of its calls against their schemas in /api/openapi.json and reports each field that does not match (its type, never its value). Stored as schema incidents with source web, under the same hourly cap per call and field as the server’s own.',
      tag: TAG,
      access: 'session',
      body: WebSchemaIncidentBatchSchema,
      responses: {
        202: { description: 'Stored, up to the hourly cap.', schema: WebSchemaIncidentReceiptSchema },
        401: 'Not signed in.',
        403: 'The account or membership is not active, or the request came from another site.',
      },
    }),
    async (c) => {
      const session = requireSession(c)
      const release = c.req.header(HEADERS.clientVersion)?.slice(0, 60) ?? null
      const accepted = await storeWebIncidents(c.get('deps'), session.tenantId, release, c.req.valid('json').incidents)
      return c.json({ accepted }, 202)
    },
  )

import { Hono } from 'hono'
import { z } from 'zod'
import {
  CSP_ADDRESS_LIMIT,
  CSP_BODY_MAX_BYTES,
  CSP_REPORTS_PER_BODY,
  countCspDropped,
  cspThrottled,
  hitCspAddressLimit,
  readCspReports,
  storeCspReports,
  verifyCspReportToken,
} from '#server/domain/observability/csp'
import { operation } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'

/**
 * `POST /telemetry/csp-reports` (issue 15): where the browser sends Content-Security-Policy
 * violations (report-to and report-uri of every page, server/web/front-door.ts). Browsers send it
 * from any context without our CSRF header, so it needs none (server/http/csrf.ts); it only adds
 * rows nobody's screen acts on. A report that does not fit is dropped and counted; the answer is
 * 204 whatever was kept. Storage: server/domain/observability/csp.ts.
 */

const Query = z.object({ o: z.string().max(200).optional().describe('The organisation’s signed token the page’s CSP carried; anything else stores the reports without an organisation.') })

const BODY_NOTE =
  'Any of: `application/reports+json` (the Reporting API: an array of `{type: "csp-violation", body: {effectiveDirective, blockedURL, documentURL, sourceFile, lineNumber, columnNumber, disposition, sample}}`), `application/csp-report` (report-uri: `{"csp-report": {"effective-directive", "blocked-uri", "document-uri", …}}`), or the same as `application/json`.'

export const cspReportRoutes = new Hono<BackendEnv>().post(
  '/telemetry/csp-reports',
  // The size is counted before the body is read (one bad browser must not cost the table).
  async (c, next) => {
    const { db, now } = c.get('deps')
    const wait = await hitCspAddressLimit(db, c.get('ip'), now())
    if (wait > 0) {
      await countCspDropped(db, null, 'rate-limited', 1, now())
      throw cspThrottled(wait)
    }
    await next()
    if (c.res.status === 413 || c.res.status === 400) await countCspDropped(db, null, c.res.status === 413 ? 'too-large' : 'invalid', 1, now())
  },
  operation({
    summary: 'Content-Security-Policy violation reports from browsers',
    description: `${BODY_NOTE} At most ${CSP_BODY_MAX_BYTES / 1024} KB and ${CSP_REPORTS_PER_BODY} reports a body; ${CSP_ADDRESS_LIMIT.points} bodies a minute per address. Query strings and fragments of URLs are not kept. No session or CSRF token needed.`,
    tag: 'Telemetry',
    access: 'public',
    query: Query,
    body: z.unknown().describe('A report or a list of reports, as above.'),
    maxBodyBytes: CSP_BODY_MAX_BYTES,
    textRuleByItem: true,
    responses: {
      204: 'Received: the reports that fit are stored, the others dropped and counted.',
      400: 'The body is not JSON.',
      413: 'The body is over 64 KB.',
      429: 'Too many reports from this address: retryAfterSeconds says when to send again.',
    },
  }),
  async (c) => {
    const { db, now, config } = c.get('deps')
    const at = now()
    const tenantId = verifyCspReportToken(config.sessionSecret, c.req.valid('query').o, at)
    const userAgent = c.req.header('user-agent')?.slice(0, 512) ?? null
    const result = await storeCspReports(db, { tenantId, reports: readCspReports(c.req.valid('json')), userAgent, now: at })
    if (result.dropped > 0) c.get('log').info({ cspReports: result }, 'CSP reports dropped as not valid')
    return c.body(null, 204)
  },
)

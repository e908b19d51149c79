import { createHmac, timingSafeEqual } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Database, Tx } from '#server/db/client'
import { cspReports, telemetryIngestCounts } from '#server/db/schema-observability'
import { ClockedRateLimiter, type LimitRule } from '#server/domain/auth/rate-limiter'
import { limitKey } from '#server/domain/auth/limits'
import { Problem } from '#server/http/problem'
import { textProblems } from '~/lib/schemas/text'
import { inScope, utcDay } from './ingest'
import { isUuid } from '~/lib/schemas/uuid'

/**
 * Content-Security-Policy violation reports (issue 15). The CSP of every page
 * (server/web/front-door.ts) names `/telemetry/csp-reports` twice: `report-to csp-endpoint` with a
 * Reporting-Endpoints header (what Chromium uses) and `report-uri` (the fall-back of browsers
 * without the Reporting API). A page drawn for a signed-in person adds `?o=<token>`: the
 * organisation's id signed with the server's secret, so its reports are the organisation's; any
 * other report is stored without one, and administrators see those only as counts.
 */

export const CSP_REPORT_PATH = '/telemetry/csp-reports'
export const CSP_ENDPOINT_NAME = 'csp-endpoint'
/** What a browser sends is small (Chromium: one report, or a few batched); 64 KB leaves room. */
export const CSP_BODY_MAX_BYTES = 64 * 1024
/** Reports read from one body; the rest are dropped and counted. */
export const CSP_REPORTS_PER_BODY = 100
/** One address: a page that violates its policy in a loop cannot flood the table. */
export const CSP_ADDRESS_LIMIT = { prefix: 'csp-address', points: 120, windowSeconds: 60 } as const satisfies LimitRule
/** How long a report is kept, counted from when it arrived (server/jobs/telemetry-retention.ts). */
export const CSP_RETENTION_DAYS = 90
/** A page's token is good this long: a tab left open still reports to its organisation. */
const TOKEN_DAYS = 30
const DAY_MS = 24 * 60 * 60_000

// ---- The organisation's token ----

function tokenKey(secret: string): Buffer {
  return createHmac('sha256', secret).update('csp report token').digest()
}

function mac(secret: string, tenantId: string, expires: string): string {
  return createHmac('sha256', tokenKey(secret)).update(`${tenantId}\n${expires}`).digest('base64url').slice(0, 32)
}

/** `<tenant id>.<expiry, seconds base 36>.<HMAC>`: for the report address of a page drawn for a member of the organisation. */
export function cspReportToken(secret: string, tenantId: string, now: Date): string {
  const expires = Math.floor((now.getTime() + TOKEN_DAYS * DAY_MS) / 1000).toString(36)
  return `${tenantId}.${expires}.${mac(secret, tenantId, expires)}`
}

/** The organisation a token names, when it is ours and not expired; else null. */
export function verifyCspReportToken(secret: string, token: string | undefined, now: Date): string | null {
  if (!token || token.length > 200) return null
  const [tenantId, expires, given] = token.split('.')
  if (!tenantId || !expires || !given || !isUuid(tenantId) || !/^[0-9a-z]{1,10}$/.test(expires)) return null
  const expected = Buffer.from(mac(secret, tenantId, expires))
  const actual = Buffer.from(given)
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null
  return parseInt(expires, 36) * 1000 > now.getTime() ? tenantId : null
}

/** The report address of a page: with the organisation's token when drawn for a signed-in member. */
export function cspReportAddress(token: string | null): string {
  return token ? `${CSP_REPORT_PATH}?o=${encodeURIComponent(token)}` : CSP_REPORT_PATH
}

// ---- Reading what browsers send ----

export type CspReport = {
  directive: string
  blockedUrl: string
  documentUrl: string | null
  sourceFile: string | null
  lineNumber: number | null
  columnNumber: number | null
  disposition: 'enforce' | 'report'
  sample: string | null
}

const URL_MAX = 2048
/** A URL without its query and fragment (they may carry tokens); the keywords browsers use (inline, eval, data) as they are. */
export function reportedUrl(value: string): string {
  const text = value.trim()
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return text.slice(0, URL_MAX)
  try {
    const url = new URL(text)
    return `${url.origin}${url.pathname}`.slice(0, URL_MAX)
  } catch {
    return text.split(/[?#]/)[0]!.slice(0, URL_MAX)
  }
}

const text = (max: number) => z.string().max(URL_MAX * 2)
  .transform((v) => v.slice(0, max))
const position = z.union([z.number(), z.string().regex(/^\d{1,9}$/)]).transform((v) => Number(v)).pipe(z.number().int().min(0).max(1e9)).nullish().catch(null)
const url = z.string().max(URL_MAX * 2).transform((v) => (v === '' ? null : reportedUrl(v))).nullish().catch(null)

/** The Reporting API's body (`application/reports+json`, type csp-violation). */
const ReportingBody = z.object({
  effectiveDirective: z.string().max(100).optional(),
  violatedDirective: z.string().max(100).optional(),
  blockedURL: z.string().max(URL_MAX * 2).optional(),
  documentURL: url,
  sourceFile: url,
  lineNumber: position,
  columnNumber: position,
  disposition: z.string().max(20).optional(),
  sample: text(256).nullish().catch(null),
})

/** The legacy `report-uri` body (`application/csp-report`): {"csp-report": {...}} with dashed names. */
const LegacyBody = z.object({
  'effective-directive': z.string().max(100).optional(),
  'violated-directive': z.string().max(100).optional(),
  'blocked-uri': z.string().max(URL_MAX * 2).optional(),
  'document-uri': url,
  'source-file': url,
  'line-number': position,
  'column-number': position,
  disposition: z.string().max(20).optional(),
  'script-sample': text(256).nullish().catch(null),
})

/** The directives a report may name (CSP Level 3 and what browsers still report). */
const DIRECTIVES = new Set([
  'default-src', 'script-src', 'script-src-elem', 'script-src-attr', 'style-src', 'style-src-elem', 'style-src-attr', 'img-src', 'font-src', 'connect-src',
  'media-src', 'object-src', 'frame-src', 'child-src', 'worker-src', 'manifest-src', 'prefetch-src', 'fenced-frame-src', 'base-uri', 'form-action',
  'frame-ancestors', 'navigate-to', 'sandbox', 'plugin-types', 'require-trusted-types-for', 'trusted-types', 'webrtc', 'upgrade-insecure-requests', 'block-all-mixed-content',
])

function normalise(input: {
  effective?: string | undefined
  violated?: string | undefined
  blocked?: string | undefined
  documentUrl: string | null | undefined
  sourceFile: string | null | undefined
  lineNumber: number | null | undefined
  columnNumber: number | null | undefined
  disposition?: string | undefined
  sample: string | null | undefined
}): CspReport | null {
  // The violated directive may be followed by its sources ("script-src 'self'"): its name is the first word.
  const directive = (input.effective ?? input.violated ?? '').trim().split(/\s+/)[0]?.toLowerCase() ?? ''
  if (!DIRECTIVES.has(directive)) return null
  const blocked = reportedUrl(input.blocked ?? '') || 'none'
  const report: CspReport = {
    directive,
    blockedUrl: blocked,
    documentUrl: input.documentUrl ?? null,
    sourceFile: input.sourceFile ?? null,
    lineNumber: input.lineNumber ?? null,
    columnNumber: input.columnNumber ?? null,
    disposition: input.disposition === 'report' ? 'report' : 'enforce',
    sample: input.sample ? input.sample : null,
  }
  // The one text rule (app/lib/schemas/text.ts): a report with broken text is dropped, not stored.
  return textProblems(report).length === 0 ? report : null
}

function fromReporting(body: unknown): CspReport | null {
  const parsed = ReportingBody.safeParse(body)
  if (!parsed.success) return null
  const b = parsed.data
  return normalise({ effective: b.effectiveDirective, violated: b.violatedDirective, blocked: b.blockedURL, documentUrl: b.documentURL, sourceFile: b.sourceFile, lineNumber: b.lineNumber, columnNumber: b.columnNumber, disposition: b.disposition, sample: b.sample })
}

function fromLegacy(body: unknown): CspReport | null {
  const parsed = LegacyBody.safeParse(body)
  if (!parsed.success) return null
  const b = parsed.data
  return normalise({
    effective: b['effective-directive'],
    violated: b['violated-directive'],
    blocked: b['blocked-uri'],
    documentUrl: b['document-uri'],
    sourceFile: b['source-file'],
    lineNumber: b['line-number'],
    columnNumber: b['column-number'],
    disposition: b.disposition,
    sample: b['script-sample'],
  })
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * The reports of a body in any of the shapes browsers send: the Reporting API's array of
 * `{type: "csp-violation", body}` (other types are not ours and dropped), the legacy
 * `{"csp-report": {...}}`, or one of either alone. null for each report that does not fit.
 */
export function readCspReports(body: unknown): Array<CspReport | null> {
  if (Array.isArray(body)) {
    return body.slice(0, CSP_REPORTS_PER_BODY).map((entry) => (isObject(entry) && entry.type === 'csp-violation' && isObject(entry.body) ? fromReporting(entry.body) : null)).concat(Array.from({ length: Math.max(0, body.length - CSP_REPORTS_PER_BODY) }, () => null))
  }
  if (!isObject(body)) return [null]
  if (isObject(body['csp-report'])) return [fromLegacy(body['csp-report'])]
  if (body.type === 'csp-violation' && isObject(body.body)) return [fromReporting(body.body)]
  return [null]
}

// ---- Storing and counting ----

const limiters = new WeakMap<Database, ClockedRateLimiter>()

/** Counts one report body from the address; the seconds to wait when it went over, else 0. */
export async function hitCspAddressLimit(db: Database, address: string, now: Date): Promise<number> {
  let limiter = limiters.get(db)
  if (!limiter) {
    limiter = new ClockedRateLimiter(db, CSP_ADDRESS_LIMIT)
    limiters.set(db, limiter)
  }
  return (await limiter.hit(limitKey(address), { now })).wait
}

export function cspThrottled(seconds: number): Problem {
  return new Problem({
    status: 429,
    title: 'Too many requests',
    detail: `Too many CSP reports from this address. Send again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
    code: 'KR_THROTTLED',
    retryAfterSeconds: seconds,
  })
}

/** The ingest counters (telemetry_ingest_counts) count CSP reports as kind `csp`. */
export type CspOutcome = 'accepted' | 'invalid' | 'rate-limited' | 'too-large'

async function addCount(tx: Tx, tenantId: string | null, outcome: CspOutcome, n: number, now: Date): Promise<void> {
  if (n <= 0) return
  const t = telemetryIngestCounts
  await tx
    .insert(t)
    .values({ tenantId, day: utcDay(now), kind: 'csp', outcome, count: n })
    .onConflictDoUpdate({ target: [t.tenantId, t.day, t.kind, t.outcome], set: { count: sql`${t.count} + excluded.count` } })
}

export async function countCspDropped(db: Database, tenantId: string | null, outcome: CspOutcome, n: number, now: Date): Promise<void> {
  await inScope(db, tenantId, (tx) => addCount(tx, tenantId, outcome, n, now))
}

/**
 * Stores the valid reports under the token's organisation (or none) and counts them with the
 * dropped ones. An organisation that no longer exists stores them without one.
 */
export async function storeCspReports(
  db: Database,
  input: { tenantId: string | null; reports: Array<CspReport | null>; userAgent: string | null; now: Date },
): Promise<{ accepted: number; dropped: number }> {
  const valid = input.reports.filter((r): r is CspReport => r !== null)
  const dropped = input.reports.length - valid.length
  const store = (tenantId: string | null) =>
    inScope(db, tenantId, async (tx) => {
      if (valid.length > 0) {
        await tx.insert(cspReports).values(valid.map((r) => ({ ...r, tenantId, userAgent: input.userAgent, receivedAt: input.now })))
      }
      await addCount(tx, tenantId, 'accepted', valid.length, input.now)
      await addCount(tx, tenantId, 'invalid', dropped, input.now)
    })
  try {
    await store(input.tenantId)
  } catch (error) {
    if (input.tenantId === null) throw error
    await store(null)
  }
  return { accepted: valid.length, dropped }
}

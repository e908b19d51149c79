import type { Context } from 'hono'
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { createMiddleware } from 'hono/factory'
import type { BackendEnv } from '#server/http/env'
import { HEADERS } from '~/lib/constants'
import { clearCookie, readCookie, writeCookie } from './cookies'
import { Problem } from './problem'
import { setAnswerHeader } from './whole-answer'

/**
 * OWASP's signed double-submit cookie: the token is a nonce plus an HMAC of the nonce and the
 * session it belongs to (or "anon" before sign-in), under the server secret. An unsafe request
 * must echo the cookie's token in the X-CSRF-Token header (HTML forms carry it as a hidden field,
 * which the web app passes on as that header), the token must verify for the current session,
 * and a cross-site request is refused outright, whatever its token.
 */
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

export function mintCsrfToken(secret: string, binding: string): string {
  const nonce = randomBytes(18).toString('base64url')
  return `${nonce}.${sign(secret, binding, nonce)}`
}

export function verifyCsrfToken(secret: string, binding: string, token: string | undefined): boolean {
  if (!token) return false
  const [nonce, mac] = token.split('.')
  if (!nonce || !mac) return false
  const expected = Buffer.from(sign(secret, binding, nonce))
  const actual = Buffer.from(mac)
  return expected.length === actual.length && timingSafeEqual(expected, actual)
}

/** The nonce of a token: a stable anonymous identity for idempotency keys before sign-in. */
export function csrfNonce(token: string | undefined): string | undefined {
  return token?.split('.')[0]
}

function sign(secret: string, binding: string, nonce: string): string {
  return createHmac('sha256', secret).update(`${binding}!${nonce}`).digest('base64url')
}

export function csrfBinding(sessionId: string | undefined): string {
  return sessionId ? `session:${sessionId}` : 'anon'
}

/** Unsafe calls that need no session, so a stale session cookie does not stop them. */
const SIGNED_OUT_PATHS = new Set([
  '/auth/login',
  '/auth/admin/login',
  '/auth/register-self',
  '/auth/email/verify',
  '/auth/password/reset/request',
  '/auth/password/reset/confirm',
  '/auth/demo-session',
  '/auth/session',
  '/auth/oidc/authorize',
])

/**
 * The identity provider's answer (issue 16) arrives by a cross-site navigation, so it carries no
 * token and a cross-site Sec-Fetch-Site. Its CSRF defence is OAuth's: the unguessable `state` of
 * a flow bound to this browser by an HttpOnly cookie (RFC 6749 §10.12, server/domain/oidc/flows.ts).
 */
const OIDC_CALLBACK = /^\/auth\/oidc\/callback\/?$/

/**
 * Paths a browser may call without the token: they carry no credentials and change nothing of the
 * user's. CSP reports come from the browser itself (report-to, report-uri), never with our header.
 */
/**
 * A payment provider's webhooks (their signature is the check) and the built-in test provider's
 * Pay and Cancel buttons, which stand where the provider's own site would (docs/billing.md).
 */
const BILLING_PROVIDER_CALLS = /^\/api\/billing\/(webhooks\/[^/]+|test-provider\/checkout\/[^/]+\/(pay|cancel))\/?$/

const EXEMPT = [/^\/telemetry\/public-/, /^\/telemetry\/csp-reports\/?$/, OIDC_CALLBACK, BILLING_PROVIDER_CALLS]
/**
 * Paths that need no token but must come from our own pages: the browser's telemetry, which
 * `navigator.sendBeacon` posts on page hide with the cookies and no way to add a header. It only
 * adds rows about the caller; the same-site check (Sec-Fetch-Site, Origin) stops other sites.
 */
const SAME_SITE_ONLY = new Set(['/telemetry/events'])

export const csrfProtection = createMiddleware<BackendEnv>(async (c, next) => {
  const { config } = c.get('deps')
  const binding = csrfBinding(c.get('session')?.id)
  const cookieToken = readCookie(c, config, 'csrf')
  const valid = verifyCsrfToken(config.sessionSecret, binding, cookieToken)

  if (UNSAFE.has(c.req.method) && !EXEMPT.some((p) => p.test(c.req.path))) {
    // A session cookie that no longer names a live session: the client's problem is the expired
    // session (401, so it refreshes or signs in), not the token bound to it. Signing in is allowed.
    if (!c.get('session') && readCookie(c, config, 'session') && !SIGNED_OUT_PATHS.has(c.req.path)) {
      clearCookie(c, config, 'session')
      c.set('csrfToken', issueCsrfToken(c, 'anon'))
      throw new Problem({ status: 401, title: 'Unauthorized', detail: 'Your session has expired. Sign in again.', code: 'KR_SESSION_EXPIRED' })
    }
    if (isCrossSite(c.req.raw, config.publicUrl)) {
      throw new Problem({ status: 403, title: 'Forbidden', detail: 'Cross-site requests are not allowed.', code: 'KR_CSRF_CROSS_SITE' })
    }
    const headerToken = c.req.header(HEADERS.csrf)
    const tokenNeeded = !SAME_SITE_ONLY.has(c.req.path.replace(/\/$/, ''))
    if (tokenNeeded && (!valid || !headerToken || headerToken !== cookieToken)) {
      throw new Problem({
        status: 403,
        title: 'Forbidden',
        detail: 'The form or request has expired or did not come from this site.',
        code: 'KR_CSRF_INVALID',
        remediation: 'Reload the page and try again.',
      })
    }
  }

  c.set('csrfToken', valid && cookieToken ? cookieToken : pageCsrfToken(c, binding))
  await next()
  setAnswerHeader(c, HEADERS.csrf, c.get('csrfToken'))
})

/** The token this page request already minted for the binding (request-scope.ts csrfTokens), or a new one. */
function pageCsrfToken(c: Context<BackendEnv>, binding: string): string {
  const minted = c.env?.scope?.csrfTokens
  const earlier = minted?.get(binding)
  if (!earlier) {
    const token = issueCsrfToken(c, binding)
    minted?.set(binding, token)
    return token
  }
  writeCookie(c, c.get('deps').config, 'csrf', earlier)
  c.set('csrfToken', earlier)
  return earlier
}

/** Mints a token for a binding, sets the cookie and returns the token (after sign-in and sign-out). */
export function issueCsrfToken(c: Parameters<typeof writeCookie>[0], binding: string): string {
  const { config } = c.get('deps') as BackendEnv['Variables']['deps']
  const token = mintCsrfToken(config.sessionSecret, binding)
  writeCookie(c, config, 'csrf', token)
  c.set('csrfToken', token)
  return token
}

function isCrossSite(request: Request, publicUrl: string): boolean {
  if (request.headers.get('sec-fetch-site') === 'cross-site') return true
  const origin = request.headers.get('origin')
  if (!origin || origin === 'null') return origin === 'null'
  const allowed = new Set([new URL(publicUrl).origin, new URL(request.url).origin])
  return !allowed.has(origin)
}

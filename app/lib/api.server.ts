import type { AppLoadContext } from 'react-router'
import { createApiClient } from '~/lib/api/client'
import { ensureClientId } from '~/lib/api/client-id'
import { inProcessRequest } from '~/lib/api/in-process-request'
import { detectClientOs } from '~/lib/client-os'
import {
  csrfTokenFromCookies,
  decodeCookieValue,
  hasSessionCookie,
  isCsrfCookieName,
  parseCookieHeader,
  parseSetCookie,
  serializeCookies,
} from '~/lib/api/cookies'
import { isUnsafeMethod } from '~/lib/api/paths'
import type { ApiClient, SignedOutReason } from '~/lib/api/types'
import { CLIENT_ID_COOKIE_MAX_AGE_S, COOKIES, CSRF_FORM_FIELD, HEADERS } from '~/lib/constants'

export type ServerApiOptions = {
  /**
   * The submitted form of an action. Its `csrf` field then is the token of unsafe calls, not the
   * cookie: echoing the cookie would let a forged form through, as the cookie comes with it.
   */
  form?: FormData | undefined
  /** Injected for tests; default Date.now. */
  now?: (() => number) | undefined
}

export type ServerApi = {
  api: ApiClient
  /** Every Set-Cookie of the backend (and a new client id cookie): return them with the response. */
  responseHeaders: Headers
  /** The latest CSRF token known, for the root loader to render into forms. */
  csrfToken: () => string | undefined
  /** Set when a call signed the user out (spec §8), so the loader can redirect. */
  signedOut: () => SignedOutReason | undefined
  blockedCorrelationId: () => string | undefined
  tenantCleared: () => boolean
}

/** Incoming headers the backend needs: who the browser is, and Origin / Sec-Fetch-Site for CSRF defence. */
const FORWARDED_HEADERS = ['user-agent', 'accept-language', 'origin', 'sec-fetch-site'] as const

/**
 * The API client bound to one page request (DESIGN.md "One contract, two transports"): the
 * browser's cookies go in with every call, kept up to date with what the backend sets during
 * this request (a login followed by a session fetch works), and every Set-Cookie comes back out.
 */
export function createServerApi(request: Request, context: AppLoadContext, options: ServerApiOptions = {}): ServerApi {
  const now = options.now ?? Date.now
  const responseHeaders = new Headers()
  const jar = parseCookieHeader(request.headers.get('cookie'))
  let latestToken = csrfTokenFromCookies(jar)
  const formToken = options.form?.get(CSRF_FORM_FIELD)
  // With a form, only a token the backend issued after accepting an unsafe call replaces it.
  let callToken = options.form ? (typeof formToken === 'string' && formToken !== '' ? formToken : undefined) : undefined
  let signedOut: SignedOutReason | undefined
  let blockedCorrelationId: string | undefined
  let tenantCleared = false

  const clientId = ensureClientId(decodeCookieValue(jar.get(COOKIES.clientId)))
  if (clientId.generated) {
    const secure = new URL(request.url).protocol === 'https:' ? '; Secure' : ''
    responseHeaders.append(
      'set-cookie',
      `${COOKIES.clientId}=${clientId.id}; Path=/; Max-Age=${CLIENT_ID_COOKIE_MAX_AGE_S}; SameSite=Lax${secure}`,
    )
  }

  async function transport(outgoing: Request): Promise<Response> {
    // The client made this request for this call alone: its headers are completed in place. A copy
    // (new Headers, new Request following its signal) cost about 45 µs a call (issue 37).
    const headers = outgoing.headers
    for (const name of FORWARDED_HEADERS) {
      const value = request.headers.get(name)
      if (value !== null) headers.set(name, value)
    }
    if (jar.size > 0) headers.set('cookie', serializeCookies(jar))
    const response = await context.backend(outgoing)
    const issued = absorb(response)
    if (options.form && isUnsafeMethod(outgoing.method) && response.ok && issued.changed) callToken = issued.token
    return response
  }

  /** Takes the response's cookies into the jar and the outgoing headers; reports a new CSRF token. */
  function absorb(response: Response): { changed: boolean; token: string | undefined } {
    let changed = false
    for (const line of response.headers.getSetCookie()) {
      responseHeaders.append('set-cookie', line)
      const cookie = parseSetCookie(line, now())
      if (!cookie) continue
      if (cookie.expired) jar.delete(cookie.name)
      else jar.set(cookie.name, cookie.value)
      if (isCsrfCookieName(cookie.name)) {
        latestToken = cookie.expired ? undefined : decodeCookieValue(cookie.value)
        changed = true
      }
    }
    const echoed = response.headers.get(HEADERS.csrf)
    if (echoed) {
      changed ||= echoed !== latestToken
      latestToken = echoed
    }
    return { changed, token: latestToken }
  }

  const api = createApiClient({
    transport,
    createRequest: inProcessRequest,
    origin: new URL(request.url).origin,
    getCsrfToken: () => (options.form ? callToken : latestToken),
    clientId: clientId.id,
    os: detectClientOs(request.headers.get('user-agent')),
    now,
    // Read per call: a sign-in earlier in this request puts a session cookie into the jar.
    canRefreshSession: () => hasSessionCookie(jar),
    onSignedOut: (reason) => {
      signedOut = reason
    },
    onBlocked: (correlationId) => {
      blockedCorrelationId = correlationId
    },
    onTenantCleared: () => {
      tenantCleared = true
    },
  })

  return {
    api,
    responseHeaders,
    csrfToken: () => latestToken,
    signedOut: () => signedOut,
    blockedCorrelationId: () => blockedCorrelationId,
    tenantCleared: () => tenantCleared,
  }
}

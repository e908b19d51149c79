import { loginPath } from '~/lib/auth/guard'
import { COOKIES } from '~/lib/constants'
import type { CheckedAnswer } from './answer-check'
import { createApiClient } from './client'
import { loadBrowserClientId } from './client-id'
import { detectClientOs } from '../client-os'
import { csrfTokenFromCookies, decodeCookieValue, parseCookieHeader } from './cookies'
import { blockedPath } from './paths'
import type { ApiClient, ApiClientOptions } from './types'

export type BrowserApiOptions = Pick<ApiClientOptions, 'defaultTimeoutMs' | 'onSignedOut' | 'onBlocked' | 'onTenantCleared'>

/**
 * The client as islands use it: same-origin fetch with the browser's cookies, the CSRF token read
 * from its readable cookie, the client id from localStorage (or the server's sp_cid cookie). By
 * default a blocked user goes to /auth/blocked (spec §8) and any other sign-out to the login page,
 * back to where they were.
 * Call it in the browser only (an effect or an event handler), never during server rendering.
 */
export function createBrowserApi(options: BrowserApiOptions = {}): ApiClient {
  return createApiClient({
    transport: (request) => fetch(request),
    origin: window.location.origin,
    getCsrfToken: () => csrfTokenFromCookies(parseCookieHeader(document.cookie)),
    clientId: browserClientId(),
    os: detectClientOs(navigator.userAgent),
    defaultTimeoutMs: options.defaultTimeoutMs,
    onBlocked: options.onBlocked ?? ((correlationId) => window.location.assign(blockedPath(correlationId))),
    onSignedOut: options.onSignedOut ?? signInAgain,
    onTenantCleared: options.onTenantCleared,
    onAnswer: checkAnswer,
  })
}

let checker: Promise<(answer: CheckedAnswer) => void> | undefined

/**
 * One checker per page (spec: Administration › Schema incidents, source web): the contract is
 * fetched once, and a mismatch goes to /telemetry/schema-incidents through a client of its own
 * that checks nothing, so a report never reports itself. Its module is fetched with the first
 * answer, not with the page: the check runs when the browser is idle anyway, and the first load's
 * JavaScript stays smaller (docs/performance.md).
 */
function checkAnswer(answer: CheckedAnswer): void {
  checker ??= import('./answer-check').then(({ createAnswerChecker }) =>
    createAnswerChecker({
      loadDocument: async () => {
        const response = await fetch('/api/openapi.json', { credentials: 'same-origin' })
        return response.ok ? ((await response.json()) as unknown) : undefined
      },
      report: (incidents) =>
        createApiClient({
          transport: (request) => fetch(request),
          origin: window.location.origin,
          getCsrfToken: () => csrfTokenFromCookies(parseCookieHeader(document.cookie)),
          clientId: browserClientId(),
          os: detectClientOs(navigator.userAgent),
          // A report is never worth a session refresh or a sign-out.
          canRefreshSession: () => false,
        }).POST('/telemetry/schema-incidents', { body: { incidents } }),
    }),
    (error: unknown) => {
      // Offline: this answer stays unchecked, as after a failed check; a later one tries again.
      checker = undefined
      throw error
    },
  )
  checker.then((check) => check(answer)).catch(() => undefined)
}

/** This browser's client id (spec §5): the one the API client sends, also the sync island's device id. */
export function browserClientId(): string {
  return loadBrowserClientId(undefined, decodeCookieValue(parseCookieHeader(document.cookie).get(COOKIES.clientId)))
}

/**
 * When the person last asked to sign out (a form posted to /auth/logout, from any screen): calls
 * still in flight then (field mode's sync, a live update) answer 401, and the sign-out's own way
 * to the sign-in page must not be overtaken by a "sign in again" back to this page.
 */
let signOutAskedAt = Number.NEGATIVE_INFINITY
const SIGN_OUT_GRACE_MS = 10_000
if (typeof document !== 'undefined') {
  document.addEventListener(
    'submit',
    (event) => {
      const form = event.target
      if (form instanceof HTMLFormElement && new URL(form.action, window.location.href).pathname === '/auth/logout') signOutAskedAt = performance.now()
    },
    true,
  )
}
/** Already on the way to the sign-in page: the other calls that answer 401 meanwhile say nothing new. */
let leaving = false

function signInAgain(reason: string): void {
  // The blocked page is already on its way (onBlocked); a second navigation would replace it.
  if (reason === 'blocked') return
  // Already on a sign-in page: a call still in flight from the page before answered 401. Sending
  // the person to sign in again would only reload this page with itself as the page to return to
  // (/auth/login?redirectTo=%2Fauth%2Flogin), three times over.
  if (window.location.pathname.startsWith('/auth/')) return
  if (performance.now() - signOutAskedAt < SIGN_OUT_GRACE_MS || leaving) return
  leaving = true
  window.location.assign(loginPath(window.location.pathname + window.location.search))
}

import type { Context } from 'hono'
import type { BackendEnv } from '#server/http/env'
import { writeCookie } from '#server/http/cookies'
import { csrfBinding, issueCsrfToken } from '#server/http/csrf'
import { cookieMaxAge } from '#server/http/session'
import { warnForRequest } from '#server/http/proxy-warning'
import type { AuthSession } from '#server/domain/auth/sessions'

/** What domain calls need to know about the request; every throttled auth call passes here. */
export function requestContext(c: Context<BackendEnv>) {
  warnForRequest(c)
  return {
    ip: c.get('ip'),
    userAgent: c.req.header('user-agent'),
    correlationId: c.get('correlationId'),
    publicUrl: c.get('deps').config.publicUrl,
  }
}

/** Hands a new session to the browser: the cookie, and a CSRF token bound to the new session. */
export function startSession(c: Context<BackendEnv>, token: string, session: AuthSession): void {
  const { config, now } = c.get('deps')
  writeCookie(c, config, 'session', token, cookieMaxAge(session, now()))
  c.set('session', session)
  c.set('sessionToken', token)
  issueCsrfToken(c, csrfBinding(session.id))
}

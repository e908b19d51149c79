import type { Context } from 'hono'
import { createMiddleware } from 'hono/factory'
import type { BackendEnv } from '#server/http/env'
import { findSession, touchSession, type AuthSession } from '#server/domain/auth/sessions'
import { userStatusProblem } from '#server/domain/auth/sign-in'
import { ERROR_CODES } from '~/lib/constants'
import { readCookie, writeCookie } from './cookies'
import { Problem } from './problem'

/** Resolves the session cookie to a live session and slides its expiry on. */
export const resolveSession = createMiddleware<BackendEnv>(async (c, next) => {
  const { db, config, now } = c.get('deps')
  const token = readCookie(c, config, 'session')
  if (token) {
    // A page's calls read the session once: the first call reads it (and slides its expiry on), the others share it.
    const sessions = c.env?.scope?.sessions
    let found = sessions?.get(token)
    const first = found === undefined
    if (!found) {
      found = findSession(db, token, now())
      if (sessions) {
        sessions.set(token, found)
        found.catch(() => sessions.delete(token))
      }
    }
    const session = await found
    if (session) {
      c.set('session', session)
      c.set('sessionToken', token)
      if (first && (await touchSession(db, session, now()))) writeCookie(c, config, 'session', token, cookieMaxAge(session, now()))
    }
  }
  await next()
})

export function cookieMaxAge(session: AuthSession, now: Date): number {
  return Math.max(1, Math.ceil((session.expiresAt.getTime() - now.getTime()) / 1000))
}

/** A fully signed-in, active user: anything less is refused with the code the client acts on. */
export function requireSession(c: Context<BackendEnv>): AuthSession {
  const session = c.get('session')
  if (!session) throw new Problem({ status: 401, title: 'Unauthorized', detail: 'Sign in to continue.', code: 'KR_UNAUTHENTICATED' })
  const statusProblem = userStatusProblem(session.userStatus)
  if (statusProblem) throw statusProblem
  if (session.requiresMfa) {
    throw new Problem({
      status: 401,
      title: 'Unauthorized',
      detail: 'Finish signing in with your authentication code.',
      code: ERROR_CODES.mfaRequired,
    })
  }
  return session
}

/** A session still waiting for its second factor (or a full one, for the callers that accept both). */
export function requirePendingSession(c: Context<BackendEnv>): AuthSession {
  const session = c.get('session')
  if (!session) throw new Problem({ status: 401, title: 'Unauthorized', detail: 'Sign in to continue.', code: 'KR_UNAUTHENTICATED' })
  const statusProblem = userStatusProblem(session.userStatus)
  if (statusProblem) throw statusProblem
  return session
}

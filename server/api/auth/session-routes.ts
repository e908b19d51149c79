import { Hono, type Context } from 'hono'
import type { BackendEnv } from '#server/http/env'
import { recordAudit } from '#server/domain/audit'
import { enrollment, verifyMfa } from '#server/domain/auth/mfa'
import { revokeSession, sessionView, touchSession } from '#server/domain/auth/sessions'
import { createDemoSession } from '#server/domain/auth/demo-session'
import { signIn } from '#server/domain/auth/sign-in'
import { Problem, problems } from '#server/http/problem'
import { parseJson } from '#server/http/body'
import { clearCookie, writeCookie } from '#server/http/cookies'
import { csrfBinding, issueCsrfToken } from '#server/http/csrf'
import { cookieMaxAge, requirePendingSession, requireSession } from '#server/http/session'
import { LoginSchema, MfaSchema } from '~/lib/schemas/auth'
import { requestContext, startSession } from './context'

/** Spec §7 "Auth": sign-in (user and admin), the second factor, and the session itself. */
export const sessionRoutes = new Hono<BackendEnv>()
  .post('/auth/login', (c) => signInWith(c, 'user'))
  .post('/auth/admin/login', (c) => signInWith(c, 'admin'))

  .post('/auth/demo-session', async (c) => {
    const { db, now, config } = c.get('deps')
    if (!config.demoAutoSession) throw new Problem(problems.notFound())
    const created = await createDemoSession(db, requestContext(c), now())
    startSession(c, created.token, created.session)
    return c.json(await sessionView(db, created.session, c.get('correlationId')))
  })

  .get('/auth/mfa/enrollment', async (c) => {
    const session = requirePendingSession(c)
    c.header('cache-control', 'no-store')
    return c.json(await enrollment(c.get('deps').db, session))
  })

  .post('/auth/mfa/verify', async (c) => {
    const session = requirePendingSession(c)
    const { code } = await parseJson(c, MfaSchema)
    const { db, now } = c.get('deps')
    const full = await verifyMfa(db, session, code, requestContext(c), now())
    startSession(c, full.token, full.session)
    return c.json(await sessionView(db, full.session, c.get('correlationId')))
  })

  .get('/auth/session', async (c) => {
    const session = requirePendingSession(c)
    c.header('cache-control', 'no-store')
    return c.json(await sessionView(c.get('deps').db, session, c.get('correlationId')))
  })

  .post('/auth/session/refresh', async (c) => {
    const session = requireSession(c)
    const { db, now, config } = c.get('deps')
    await touchSession(db, session, now(), true)
    const token = c.get('sessionToken')
    if (token) writeCookie(c, config, 'session', token, cookieMaxAge(session, now()))
    return c.json(await sessionView(db, session, c.get('correlationId')))
  })

  .delete('/auth/session', async (c) => {
    const session = c.get('session')
    const { db, now, config } = c.get('deps')
    if (session) {
      await revokeSession(db, session.id, now())
      await recordAudit(db, { tenantId: session.tenantId, actorUserId: session.userId, action: 'auth.signout', ip: c.get('ip'), correlationId: c.get('correlationId') })
    }
    clearCookie(c, config, 'session')
    c.set('session', undefined)
    issueCsrfToken(c, csrfBinding(undefined))
    return c.body(null, 204)
  })

async function signInWith(c: Context<BackendEnv>, kind: 'user' | 'admin'): Promise<Response> {
  const input = await parseJson(c, LoginSchema)
  const { db, now } = c.get('deps')
  const ctx = requestContext(c)
  const created = await signIn(db, { ...input, kind, ip: ctx.ip, userAgent: ctx.userAgent, correlationId: ctx.correlationId }, now())
  // A new sign-in replaces whatever session this browser had (no session fixation).
  const previous = c.get('session')
  if (previous) await revokeSession(db, previous.id, now())
  startSession(c, created.token, created.session)
  return c.json(await sessionView(db, created.session, ctx.correlationId))
}

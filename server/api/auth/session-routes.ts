import { Hono, type Context } from 'hono'
import type { z } from 'zod'
import type { BackendEnv } from '#server/http/env'
import { recordAudit } from '#server/domain/audit'
import { enrollment, verifyMfa } from '#server/domain/auth/mfa'
import { revokeSession, sessionView, touchSession } from '#server/domain/auth/sessions'
import { createDemoSession } from '#server/domain/auth/demo-session'
import { signIn } from '#server/domain/auth/sign-in'
import { Problem, problems } from '#server/http/problem'
import { AuthEnrollmentSchema, SessionSchema } from '~/lib/schemas/auth-responses'
import { operation, type OperationSpec } from '#server/http/contract'
import { clearCookie, writeCookie } from '#server/http/cookies'
import { csrfBinding, issueCsrfToken } from '#server/http/csrf'
import { cookieMaxAge, requirePendingSession, requireSession } from '#server/http/session'
import { LoginSchema, MfaSchema } from '~/lib/schemas/auth'
import { requestContext, startSession } from './context'

/** Spec §7 "Auth": sign-in (user and admin), the second factor, and the session itself. */
export const sessionRoutes = new Hono<BackendEnv>()
  .post('/auth/login', signInOperation('Sign in as a user'), (c) => signInWith(c, 'user', c.req.valid('json')))
  .post('/auth/admin/login', signInOperation('Sign in as an administrator (a second factor always follows)'), (c) => signInWith(c, 'admin', c.req.valid('json')))

  .post('/auth/demo-session', operation({ summary: 'The one-hour demo admin session (spec §4), when the server allows it', tag: 'Auth', access: 'public', responses: { 200: { description: 'The session.', schema: SessionSchema }, 404: 'Not enabled on this server.' } }), async (c) => {
    const { db, now, config } = c.get('deps')
    if (!config.demoAutoSession) throw new Problem(problems.notFound())
    const created = await createDemoSession(db, requestContext(c), now())
    startSession(c, created.token, created.session)
    return c.json(await sessionView(db, created.session, c.get('correlationId'), c.get('deps').config.featureFlags))
  })

  .get('/auth/mfa/enrollment', operation({ summary: 'The authenticator secret to enrol, for a session waiting for its second factor', tag: 'Auth', access: 'pending-session', responses: { 200: { description: 'The secret and its otpauth URI.', schema: AuthEnrollmentSchema }, 409: 'The second factor is set up already (KR_MFA_ALREADY_ENROLLED).' } }), async (c) => {
    const session = requirePendingSession(c)
    c.header('cache-control', 'no-store')
    return c.json(await enrollment(c.get('deps').db, session))
  })

  .post('/auth/mfa/verify', operation({ summary: 'Finish signing in with a 6-digit authenticator code', tag: 'Auth', access: 'pending-session', body: MfaSchema, responses: { 200: { description: 'The full session.', schema: SessionSchema }, 400: 'The code is wrong or used.', 409: 'Not waiting for a second factor (KR_MFA_NOT_PENDING), or none is set up yet (KR_MFA_NOT_ENROLLED).', 429: 'Too many wrong codes.' } }), async (c) => {
    const session = requirePendingSession(c)
    const { code } = c.req.valid('json')
    const { db, now } = c.get('deps')
    const full = await verifyMfa(db, session, code, requestContext(c), now())
    startSession(c, full.token, full.session)
    return c.json(await sessionView(db, full.session, c.get('correlationId'), c.get('deps').config.featureFlags))
  })

  .get('/auth/session', operation({ summary: 'The current session (spec §3 "Session", flat form)', tag: 'Auth', access: 'pending-session', responses: { 200: { description: 'The session.', schema: SessionSchema } } }), async (c) => {
    const session = requirePendingSession(c)
    c.header('cache-control', 'no-store')
    return c.json(await sessionView(c.get('deps').db, session, c.get('correlationId'), c.get('deps').config.featureFlags))
  })

  .post('/auth/session/refresh', operation({ summary: 'Slide the session’s expiry forward', tag: 'Auth', access: 'session', responses: { 200: { description: 'The session, with its new expiry.', schema: SessionSchema } } }), async (c) => {
    const session = requireSession(c)
    const { db, now, config } = c.get('deps')
    await touchSession(db, session, now(), true)
    const token = c.get('sessionToken')
    if (token) writeCookie(c, config, 'session', token, cookieMaxAge(session, now()))
    return c.json(await sessionView(db, session, c.get('correlationId'), c.get('deps').config.featureFlags))
  })

  .delete('/auth/session', operation({ summary: 'Sign out', tag: 'Auth', access: 'public', responses: { 204: 'Signed out (also when there was no session).' } }), async (c) => {
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

function signInOperation(summary: string) {
  return operation({
    summary,
    tag: 'Auth',
    access: 'public',
    body: LoginSchema,
    responses: { 200: { description: 'The session (requiresMfa when a second factor is due).', schema: SessionSchema }, 401: 'Wrong e-mail or password.', 403: 'The account is blocked or not active (KR_USER_BLOCKED, KR_USER_NOT_ACTIVE).', 429: 'Locked for this client, or slowed for the account.' },
  } satisfies OperationSpec)
}

async function signInWith(c: Context<BackendEnv>, kind: 'user' | 'admin', input: z.output<typeof LoginSchema>): Promise<Response> {
  const { db, now } = c.get('deps')
  const ctx = requestContext(c)
  const created = await signIn(db, { ...input, kind, ip: ctx.ip, userAgent: ctx.userAgent, correlationId: ctx.correlationId }, now())
  // A new sign-in replaces whatever session this browser had (no session fixation).
  const previous = c.get('session')
  if (previous) await revokeSession(db, previous.id, now())
  startSession(c, created.token, created.session)
  return c.json(await sessionView(db, created.session, ctx.correlationId, c.get('deps').config.featureFlags))
}

import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { sessions } from '#server/db/schema'
import {
  CSRF_COOKIE,
  SESSION_COOKIE,
  auditOf,
  client,
  createMember,
  show,
  enrollMfa,
  expectProblem,
  signIn,
  signedInClient,
  totpAt,
  type SessionBody,
} from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend()
})

afterAll(async () => {
  await t.close()
})

const MINUTE = 60_000

function setCookieLine(response: Response, name: string): string | undefined {
  return response.headers.getSetCookie().find((line) => line.startsWith(`${name}=`))
}

function at(ms: number): string {
  return new Date(ms).toISOString()
}

test('GET /auth/session without a session cookie answers 401 and hands out an anonymous CSRF cookie', async () => {
  const c = client(t)

  const response = await c.get('/auth/session')

  await expectProblem(response, 401, 'KR_UNAUTHENTICATED')
  expect(c.jar.get(CSRF_COOKIE)).toBeTruthy()
  expect(response.headers.get('cache-control')).toBe('no-store')
})

test('an unknown session token answers 401', async () => {
  const c = client(t)
  c.jar.set(SESSION_COOKIE, 'forged-token-value')

  await expectProblem(await c.get('/auth/session'), 401, 'KR_UNAUTHENTICATED')
})

test('a session expires after 30 idle minutes', async () => {
  const member = await createMember(t.db)
  const c = await signedInClient(t, member)
  expect((await c.get('/auth/session')).status).toBe(200)

  t.now.advance(31 * MINUTE)

  await expectProblem(await c.get('/auth/session'), 401, 'KR_UNAUTHENTICATED')
  await expectProblem(await c.get('/auth/devices'), 401, 'KR_UNAUTHENTICATED')
})

test('a request in the second half of the idle window slides the expiry on', async () => {
  const member = await createMember(t.db)
  const c = await signedInClient(t, member)
  const start = t.now().getTime()

  t.now.advance(10 * MINUTE)
  const early = (await (await c.get('/auth/session')).json()) as SessionBody
  t.now.advance(10 * MINUTE)
  const slid = await c.get('/auth/session')
  const slidBody = (await slid.json()) as SessionBody
  t.now.advance(25 * MINUTE)
  const stillAlive = await c.get('/auth/session')
  t.now.advance(31 * MINUTE)
  const gone = await c.get('/auth/session')

  expect(early.sessionExpiresAtUtc).toBe(at(start + 30 * MINUTE))
  expect(slidBody.sessionExpiresAtUtc).toBe(at(start + 50 * MINUTE))
  expect(setCookieLine(slid, SESSION_COOKIE)).toMatch(/; Max-Age=1800\b/i)
  expect(stillAlive.status).toBe(200)
  await expectProblem(gone, 401, 'KR_UNAUTHENTICATED')
})

test('POST /auth/session/refresh extends the session by the idle window', async () => {
  const member = await createMember(t.db)
  const c = await signedInClient(t, member)
  const start = t.now().getTime()

  t.now.advance(5 * MINUTE)
  const refreshed = await c.post('/auth/session/refresh')
  t.now.advance(29 * MINUTE)
  const afterOriginalExpiry = await c.get('/auth/session')

  expect(refreshed.status, await show(refreshed)).toBe(200)
  expect(await refreshed.json()).toMatchObject({ userId: member.user.id, sessionExpiresAtUtc: at(start + 35 * MINUTE) })
  expect(setCookieLine(refreshed, SESSION_COOKIE)).toMatch(/; Max-Age=1800\b/i)
  expect(afterOriginalExpiry.status).toBe(200)
})

test('POST /auth/session/refresh without a session answers 401', async () => {
  await expectProblem(await client(t).post('/auth/session/refresh'), 401, 'KR_UNAUTHENTICATED')
})

test('however often it is refreshed, an admin session ends 12 hours after sign-in', async () => {
  const member = await createMember(t.db, { roleKey: 'admin' })
  const secret = await enrollMfa(t.db, member.user.id)
  const c = client(t)
  await signIn(c, member.user, 'admin')
  const verified = await c.post('/auth/mfa/verify', { code: await totpAt(secret, t.now()) })
  expect(verified.status, await show(verified)).toBe(200)
  const issued = t.now().getTime()
  const limit = issued + 12 * 60 * MINUTE

  let latest = ''
  for (let elapsed = 25; elapsed < 12 * 60; elapsed += 25) {
    t.now.set(issued + elapsed * MINUTE)
    const response = await c.post('/auth/session/refresh')
    expect(response.status, `${elapsed} min: ${await show(response)}`).toBe(200)
    latest = ((await response.json()) as SessionBody).sessionExpiresAtUtc
    expect(Date.parse(latest)).toBeLessThanOrEqual(limit)
  }
  t.now.set(limit + 1_000)
  const after = await c.get('/auth/session')

  expect(latest).toBe(at(limit))
  await expectProblem(after, 401, 'KR_UNAUTHENTICATED')
})

test('a user session made by sign-in has an absolute lifetime of 14 days', async () => {
  const member = await createMember(t.db)
  const body = await signIn(client(t), member.user)

  const [row] = await t.db.select({ issuedAt: sessions.issuedAt, maxExpiresAt: sessions.maxExpiresAt }).from(sessions).where(eq(sessions.userId, member.user.id))

  expect(row?.issuedAt.toISOString()).toBe(body.issuedAtUtc)
  expect(row?.maxExpiresAt.getTime()).toBe(Date.parse(body.issuedAtUtc) + 14 * 24 * 60 * MINUTE)
})

test('DELETE /auth/session signs out: 204, the cookie is cleared, the token is dead and auth.signout is audited', async () => {
  const member = await createMember(t.db)
  const c = client(t)
  await signIn(c, member.user)
  const token = c.jar.get(SESSION_COOKIE)
  const signedInCsrf = c.jar.get(CSRF_COOKIE)

  const response = await c.delete('/auth/session')

  expect(response.status, await show(response)).toBe(204)
  expect(setCookieLine(response, SESSION_COOKIE)).toMatch(/; Max-Age=0\b/i)
  expect(c.jar.get(SESSION_COOKIE)).toBeUndefined()
  expect(c.jar.get(CSRF_COOKIE)).toBeTruthy()
  expect(c.jar.get(CSRF_COOKIE)).not.toBe(signedInCsrf)
  const replay = client(t)
  replay.jar.set(SESSION_COOKIE, token ?? '')
  await expectProblem(await replay.get('/auth/session'), 401, 'KR_UNAUTHENTICATED')
  expect(await auditOf(t.db, { action: 'auth.signout', actorUserId: member.user.id })).toEqual([
    expect.objectContaining({ tenantId: member.tenant.id, correlationId: response.headers.get('x-correlation-id') }),
  ])
})

test('DELETE /auth/session without a session still answers 204', async () => {
  const response = await client(t).delete('/auth/session')

  expect(response.status).toBe(204)
})

test('a user blocked while signed in is refused on the next request with KR_USER_BLOCKED', async () => {
  const member = await createMember(t.db, { status: 'blocked' })
  const c = await signedInClient(t, member)

  await expectProblem(await c.get('/auth/session'), 403, 'KR_USER_BLOCKED')
  await expectProblem(await c.get('/auth/devices'), 403, 'KR_USER_BLOCKED')
})

import { randomBytes, randomUUID } from 'node:crypto'
import { and, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { devices, idempotencyKeys, users } from '#server/db/schema'
import { csrfBinding, mintCsrfToken } from '#server/http/csrf'
import { ABANDONED_CLAIM_MS } from '#server/http/idempotency'
import {
  CSRF_COOKIE,
  client,
  createMember,
  show,
  expectProblem,
  mailsTo,
  requestHashOf,
  signIn,
  signedInClient,
  uniqueEmail,
  uniqueSuffix,
  type TestClient,
  SESSION_COOKIE,
} from '#tests/helpers/auth'
import { settleAfterResponse } from '#server/api/auth/after-response'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend()
})

afterAll(async () => {
  await t.close()
})

const HOUR = 60 * 60_000

// ---- CSRF ----

test('an unsafe call without the X-CSRF-Token header is refused with 403 KR_CSRF_INVALID and changes nothing', async () => {
  const member = await createMember(t.db)
  const c = await signedInClient(t, member)
  const id = `device-${uniqueSuffix()}`
  expect((await c.post('/auth/devices/register', { deviceId: id, platform: 'ios' })).status).toBe(201)

  const body = await expectProblem(await c.delete(`/auth/devices/${id}`, { csrf: false }), 403, 'KR_CSRF_INVALID')
  await expectProblem(await c.delete('/auth/session', { csrf: false }), 403, 'KR_CSRF_INVALID')
  await expectProblem(await client(t).post('/auth/login', { email: member.user.email, password: member.user.password }, { csrf: false }), 403, 'KR_CSRF_INVALID')

  expect(body.remediation).toBeTruthy()
  const [row] = await t.db.select({ revokedAt: devices.revokedAt }).from(devices).where(eq(devices.deviceId, id))
  expect(row?.revokedAt).toBeNull()
  expect((await c.get('/auth/session')).status).toBe(200)
})

test('a header that differs from the cookie is refused, even when both are genuine tokens of this session', async () => {
  const member = await createMember(t.db)
  const c = await signedInClient(t, member)
  const sibling = mintCsrfToken(t.config.sessionSecret, csrfBinding(c.session.id))
  expect(sibling).not.toBe(c.jar.get(CSRF_COOKIE))

  await expectProblem(await c.post('/auth/session/refresh', {}, { csrf: sibling }), 403, 'KR_CSRF_INVALID')
  await expectProblem(await c.post('/auth/session/refresh', {}, { csrf: 'garbage' }), 403, 'KR_CSRF_INVALID')

  expect((await c.post('/auth/session/refresh')).status).toBe(200)
})

test('a token made for another session is refused', async () => {
  const x = await createMember(t.db)
  const y = await createMember(t.db)
  const xClient = client(t)
  await signIn(xClient, x.user)
  const xToken = xClient.jar.get(CSRF_COOKIE) ?? ''
  const yClient = await signedInClient(t, y)

  yClient.jar.set(CSRF_COOKIE, xToken)
  const response = await yClient.post('/auth/devices/register', { deviceId: `device-${uniqueSuffix()}`, platform: 'ios' }, { csrf: xToken })

  await expectProblem(response, 403, 'KR_CSRF_INVALID')
  expect((await xClient.post('/auth/session/refresh')).status).toBe(200)
})

test('a forged token, the same in cookie and header, is refused', async () => {
  const c = await signedInClient(t, await createMember(t.db))
  const forged = `${randomBytes(18).toString('base64url')}.${randomBytes(32).toString('base64url')}`
  c.jar.set(CSRF_COOKIE, forged)

  await expectProblem(await c.post('/auth/session/refresh', {}, { csrf: forged }), 403, 'KR_CSRF_INVALID')
})

test('the anonymous token stops working once signed in: sign-in hands out a token bound to the new session', async () => {
  const member = await createMember(t.db)
  const c = client(t)
  await c.get('/auth/session')
  const anonymous = c.jar.get(CSRF_COOKIE) ?? ''

  await signIn(c, member.user)
  expect(c.jar.get(CSRF_COOKIE)).not.toBe(anonymous)
  c.jar.set(CSRF_COOKIE, anonymous)
  const stale = await c.post('/auth/session/refresh')

  await expectProblem(stale, 403, 'KR_CSRF_INVALID')
})

test('Sec-Fetch-Site: cross-site is refused with KR_CSRF_CROSS_SITE even with a valid token', async () => {
  const c = await signedInClient(t, await createMember(t.db))

  const crossSite = await c.post('/auth/session/refresh', {}, { headers: { 'sec-fetch-site': 'cross-site' } })
  const sameOrigin = await c.post('/auth/session/refresh', {}, { headers: { 'sec-fetch-site': 'same-origin' } })

  await expectProblem(crossSite, 403, 'KR_CSRF_CROSS_SITE')
  expect(sameOrigin.status, await show(sameOrigin)).toBe(200)
})

test('a foreign or opaque Origin is refused; the portal’s own origin passes', async () => {
  const c = await signedInClient(t, await createMember(t.db))

  const foreign = await c.post('/auth/session/refresh', {}, { headers: { origin: 'https://evil.example' } })
  const lookalike = await c.post('/auth/session/refresh', {}, { headers: { origin: 'http://portal.test.evil.example' } })
  const opaque = await c.post('/auth/session/refresh', {}, { headers: { origin: 'null' } })
  const own = await c.post('/auth/session/refresh', {}, { headers: { origin: 'http://portal.test' } })

  await expectProblem(foreign, 403, 'KR_CSRF_CROSS_SITE')
  await expectProblem(lookalike, 403, 'KR_CSRF_CROSS_SITE')
  await expectProblem(opaque, 403, 'KR_CSRF_CROSS_SITE')
  expect(own.status, await show(own)).toBe(200)
})

test('safe methods need no token, and every response echoes the current token in X-CSRF-Token', async () => {
  const c = await signedInClient(t, await createMember(t.db))

  const response = await c.get('/auth/devices', { headers: { 'sec-fetch-site': 'cross-site' } })

  expect(response.status).toBe(200)
  expect(response.headers.get('x-csrf-token')).toBe(c.jar.get(CSRF_COOKIE))
})

// ---- Idempotency keys (on POST /auth/register-self) ----

function registration() {
  return { displayName: 'Ida Empotent', email: uniqueEmail('idem'), password: 'a perfectly fine password', organisationName: `Idem ${uniqueSuffix()}` }
}

async function register(c: TestClient, body: string, key: string): Promise<Response> {
  return c.request('/auth/register-self', { method: 'POST', body, headers: { 'content-type': 'application/json', 'idempotency-key': key } })
}

async function userCount(email: string): Promise<number> {
  const rows = await t.db.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = ${email.toLowerCase()}`)
  return rows.length
}

test('the same key and body replay the stored response: one user, one mail', async () => {
  const input = registration()
  const body = JSON.stringify(input)
  const key = randomUUID()
  const c = client(t)

  const first = await register(c, body, key)
  const second = await register(c, body, key)
  await settleAfterResponse(t.db)

  expect(first.status, await show(first)).toBe(202)
  expect(first.headers.get('idempotent-replayed')).toBeNull()
  expect(second.status).toBe(202)
  expect(second.headers.get('idempotent-replayed')).toBe('true')
  expect(second.headers.get('content-type')).toMatch(/^application\/json/)
  expect(await second.json()).toEqual(await first.json())
  expect(await userCount(input.email)).toBe(1)
  expect((await mailsTo(t.db, input.email)).map((m) => m.template)).toEqual(['verify-email'])
})

test('an error the call itself answers is stored and replayed like any response', async () => {
  const reader = await createMember(t.db, { roleKey: 'read-only' })
  const c = await signedInClient(t, reader)
  const key = randomUUID()
  const create = () => c.request('/api/projects', { method: 'POST', json: { title: 'Not allowed' }, headers: { 'idempotency-key': key } })

  const first = await expectProblem(await create(), 403)
  const second = await create()

  expect(second.status).toBe(403)
  expect(second.headers.get('idempotent-replayed')).toBe('true')
  expect(second.headers.get('content-type')).toBe('application/problem+json')
  expect(((await second.json()) as { correlationId: string }).correlationId).toBe(first.correlationId)
})

test('a request refused by validation is not stored (Stripe): the corrected retry under the same key goes through', async () => {
  const input = registration()
  const key = randomUUID()
  const c = client(t)

  await expectProblem(await register(c, JSON.stringify({ ...input, password: 'short' }), key), 400, 'KR_VALIDATION')
  const corrected = await register(c, JSON.stringify(input), key)
  await settleAfterResponse(t.db)

  expect(corrected.status).toBe(202)
  expect(corrected.headers.get('idempotent-replayed')).toBeNull()
})

test('the same key with another body is refused with 422 KR_IDEMPOTENCY_KEY_REUSED', async () => {
  const key = randomUUID()
  const c = client(t)
  const firstInput = registration()
  const otherInput = registration()
  expect((await register(c, JSON.stringify(firstInput), key)).status).toBe(202)

  const response = await register(c, JSON.stringify(otherInput), key)
  await settleAfterResponse(t.db)

  await expectProblem(response, 422, 'KR_IDEMPOTENCY_KEY_REUSED')
  expect(await userCount(otherInput.email)).toBe(0)
})

test('a retry while the first request is still running answers 409 KR_IDEMPOTENCY_IN_PROGRESS', async () => {
  const input = registration()
  const body = JSON.stringify(input)
  const key = randomUUID()
  const c = client(t)
  await c.get('/auth/session')
  const nonce = c.jar.get(CSRF_COOKIE)?.split('.')[0]
  await t.db.insert(idempotencyKeys).values({
    key,
    principal: `anon:${nonce}`,
    route: 'POST /auth/register-self',
    requestHash: requestHashOf(body),
    state: 'running',
    createdAt: t.now(),
    expiresAt: new Date(t.now().getTime() + 24 * HOUR),
  })

  const response = await register(c, body, key)

  const problem = await expectProblem(response, 409, 'KR_IDEMPOTENCY_IN_PROGRESS')
  expect(problem.retryAfterSeconds).toBeGreaterThan(0)
  expect(response.headers.get('retry-after')).toBe(String(problem.retryAfterSeconds))
  expect(await userCount(input.email)).toBe(0)
})

test('a claim left running by an instance that died is taken over once abandoned, and the retry runs once', async () => {
  const input = registration()
  const body = JSON.stringify(input)
  const key = randomUUID()
  const c = client(t)
  await c.get('/auth/session')
  const nonce = c.jar.get(CSRF_COOKIE)?.split('.')[0]
  const claimedAt = t.now()
  await t.db.insert(idempotencyKeys).values({
    key,
    principal: `anon:${nonce}`,
    route: 'POST /auth/register-self',
    requestHash: requestHashOf(body),
    state: 'running',
    createdAt: claimedAt,
    expiresAt: new Date(claimedAt.getTime() + 24 * HOUR),
  })

  t.now.advance(ABANDONED_CLAIM_MS - 1_000)
  await expectProblem(await register(c, body, key), 409, 'KR_IDEMPOTENCY_IN_PROGRESS')
  t.now.advance(2_000)
  const retried = await register(c, body, key)
  await settleAfterResponse(t.db)
  expect(retried.status, await show(retried)).toBe(202)
  const replayed = await register(c, body, key)
  expect(replayed.headers.get('idempotent-replayed')).toBe('true')
  expect(await userCount(input.email)).toBe(1)
})

test('an invalid Idempotency-Key answers 400 and runs nothing', async () => {
  const input = registration()
  const c = client(t)

  await expectProblem(await register(c, JSON.stringify(input), 'has a space'), 400, 'KR_IDEMPOTENCY_KEY_INVALID')
  await expectProblem(await register(c, JSON.stringify(input), 'k'.repeat(256)), 400, 'KR_IDEMPOTENCY_KEY_INVALID')

  expect(await userCount(input.email)).toBe(0)
})

test('a key belongs to its caller: another browser with the same key runs its own request', async () => {
  const key = randomUUID()
  const mine = registration()
  const theirs = registration()

  expect((await register(client(t), JSON.stringify(mine), key)).status).toBe(202)
  const other = await register(client(t), JSON.stringify(theirs), key)
  await settleAfterResponse(t.db)

  expect(other.status, await show(other)).toBe(202)
  expect(other.headers.get('idempotent-replayed')).toBeNull()
  expect(await userCount(theirs.email)).toBe(1)
})

test('after 24 hours a key is forgotten and the request runs again', async () => {
  const input = registration()
  const body = JSON.stringify(input)
  const key = randomUUID()
  const c = client(t)
  expect((await register(c, body, key)).status).toBe(202)
  await settleAfterResponse(t.db)

  t.now.advance(24 * HOUR + 1_000)
  const again = await register(c, body, key)
  await settleAfterResponse(t.db)

  expect(again.status, await show(again)).toBe(202)
  expect(again.headers.get('idempotent-replayed')).toBeNull()
  expect(await userCount(input.email)).toBe(1)
  expect((await mailsTo(t.db, input.email)).map((m) => m.template)).toEqual(['verify-email', 'account-exists'])
  const rows = await t.db.select({ state: idempotencyKeys.state }).from(idempotencyKeys).where(and(eq(idempotencyKeys.key, key)))
  expect(rows).toEqual([{ state: 'done' }])
})

test('an unsafe call with an expired session answers 401, not a CSRF refusal, and hands out a fresh token', async () => {
  const member = await createMember(t.db)
  const c = await signedInClient(t, member)
  t.now.advance(31 * 60_000)
  try {
    const body = await expectProblem(await c.post('/auth/devices/register', { deviceId: 'd-1', platform: 'ios' }), 401, 'KR_SESSION_EXPIRED')
    expect(body.detail).toBe('Your session has expired. Sign in again.')
    // The stale session cookie is cleared and the new CSRF token lets the user sign in straight away.
    expect(c.jar.get(SESSION_COOKIE)).toBeUndefined()
    const login = await c.post('/auth/login', { email: member.user.email, password: member.user.password })
    expect(login.status, await show(login)).toBe(200)
  } finally {
    t.now.reset()
  }
})

import { afterAll, beforeAll, expect, test } from 'vitest'
import {
  CSRF_COOKIE,
  SESSION_COOKIE,
  addMembership,
  auditOf,
  client,
  createMember,
  createTenant,
  createUser,
  show,
  enrollMfa,
  expectProblem,
  signIn,
  uniqueEmail,
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

test('POST /auth/login answers the flat session, an HttpOnly SameSite=Lax session cookie and a new CSRF cookie', async () => {
  const member = await createMember(t.db, { roleKey: 'read-write' })
  const c = client(t)
  await c.get('/auth/session')
  const anonymousCsrf = c.jar.get(CSRF_COOKIE)
  expect(anonymousCsrf).toBeTruthy()
  const now = t.now().getTime()

  const response = await c.post('/auth/login', { email: member.user.email, password: member.user.password })

  expect(response.status, await show(response)).toBe(200)
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  const body = (await response.json()) as SessionBody
  expect(body).toEqual({
    userId: member.user.id,
    displayName: member.user.displayName,
    email: member.user.email,
    roles: ['User', 'ReadWrite'],
    tenantId: member.tenant.id,
    tenantName: member.tenant.name,
    tenantSlug: member.tenant.slug,
    featureFlags: expect.any(Object),
    syncCursor: null,
    issuedAtUtc: at(now),
    sessionExpiresAtUtc: at(now + 30 * MINUTE),
    correlationId: response.headers.get('x-correlation-id'),
    kind: 'user',
    adminUiAllowed: false,
    requiresMfa: false,
    mfaEnrollment: false,
  })
  const sessionCookie = setCookieLine(response, SESSION_COOKIE)
  expect(sessionCookie).toMatch(/; HttpOnly/i)
  expect(sessionCookie).toMatch(/; SameSite=Lax/i)
  expect(sessionCookie).toMatch(/; Path=\//i)
  expect(sessionCookie).toMatch(/; Max-Age=1800\b/i)
  const csrfCookie = setCookieLine(response, CSRF_COOKIE)
  expect(csrfCookie).toBeDefined()
  expect(csrfCookie).not.toMatch(/HttpOnly/i)
  expect(c.jar.get(CSRF_COOKIE)).not.toBe(anonymousCsrf)

  const again = await c.get('/auth/session')
  expect(again.status).toBe(200)
  expect(await again.json()).toMatchObject({ userId: member.user.id, tenantId: member.tenant.id, requiresMfa: false })
  expect(await auditOf(t.db, { action: 'auth.signin', actorUserId: member.user.id })).toEqual([
    expect.objectContaining({ tenantId: member.tenant.id, ip: '203.0.113.7', data: { kind: 'user' } }),
  ])
})

test('the e-mail address is matched without regard to case or surrounding spaces', async () => {
  const member = await createMember(t.db)

  const body = await signIn(client(t), { email: `  ${member.user.email.toUpperCase()} `, password: member.user.password })

  expect(body.userId).toBe(member.user.id)
})

test('a wrong password and an unknown e-mail answer the same 401, and neither starts a session', async () => {
  const member = await createMember(t.db)
  const c = client(t)

  const wrongPassword = await c.post('/auth/login', { email: member.user.email, password: 'not the password' })
  const unknownEmail = await c.post('/auth/login', { email: uniqueEmail('nobody'), password: 'not the password' })

  const first = await expectProblem(wrongPassword, 401, 'KR_INVALID_CREDENTIALS')
  const second = await expectProblem(unknownEmail, 401, 'KR_INVALID_CREDENTIALS')
  const { correlationId: _a, instance: _b, ...sameA } = first
  const { correlationId: _c, instance: _d, ...sameB } = second
  expect(sameA).toEqual(sameB)
  expect(first.instance).toBe('/auth/login')
  expect(setCookieLine(wrongPassword, SESSION_COOKIE)).toBeUndefined()
  expect(setCookieLine(unknownEmail, SESSION_COOKIE)).toBeUndefined()
  expect(await auditOf(t.db, { action: 'auth.signin.failed', actorUserId: member.user.id })).toEqual([
    expect.objectContaining({ tenantId: null, correlationId: first.correlationId }),
  ])
  const failed = await auditOf(t.db, { action: 'auth.signin.failed' })
  expect(failed.some((e) => e.actorUserId === null && e.correlationId === second.correlationId)).toBe(true)
})

test('the admin sign-in answers a wrong password with the same 401 as the user sign-in', async () => {
  const member = await createMember(t.db, { roleKey: 'admin' })

  const response = await client(t).post('/auth/admin/login', { email: member.user.email, password: 'wrong-password' })

  const body = await expectProblem(response, 401, 'KR_INVALID_CREDENTIALS')
  expect(body.instance).toBe('/auth/admin/login')
})

test('bad sign-in input answers 400 problem details with errors per field', async () => {
  const c = client(t)

  const missingEmail = await expectProblem(await c.post('/auth/login', { password: 'x' }), 400, 'KR_VALIDATION')
  const malformedEmail = await expectProblem(await c.post('/auth/login', { email: 'not-an-address', password: 'x' }), 400, 'KR_VALIDATION')
  const missingPassword = await expectProblem(await c.post('/auth/login', { email: uniqueEmail() }), 400, 'KR_VALIDATION')
  const emptyBoth = await expectProblem(await c.post('/auth/login', { email: '', password: '' }), 400, 'KR_VALIDATION')
  const wrongTypes = await expectProblem(await c.post('/auth/login', { email: 42, password: ['x'] }), 400, 'KR_VALIDATION')
  const notJson = await expectProblem(
    await c.request('/auth/login', { method: 'POST', body: '{"email": "a@b.c",', headers: { 'content-type': 'application/json' } }),
    400,
    'KR_VALIDATION',
  )

  expect(Object.keys(missingEmail.errors ?? {})).toEqual(['email'])
  expect(Object.keys(malformedEmail.errors ?? {})).toEqual(['email'])
  expect(malformedEmail.errors?.email?.[0]).toMatch(/e-mail address/i)
  expect(Object.keys(missingPassword.errors ?? {})).toEqual(['password'])
  expect(Object.keys(emptyBoth.errors ?? {}).sort()).toEqual(['email', 'password'])
  expect(Object.keys(wrongTypes.errors ?? {}).sort()).toEqual(['email', 'password'])
  expect(notJson.detail).toMatch(/not valid JSON/i)
})

test('a blocked user learns of the block only after giving the correct password', async () => {
  const member = await createMember(t.db, { status: 'blocked' })
  const c = client(t)

  const wrong = await c.post('/auth/login', { email: member.user.email, password: 'not the password' })
  const right = await c.post('/auth/login', { email: member.user.email, password: member.user.password })

  await expectProblem(wrong, 401, 'KR_INVALID_CREDENTIALS')
  await expectProblem(right, 403, 'KR_USER_BLOCKED')
  expect(setCookieLine(right, SESSION_COOKIE)).toBeUndefined()
})

test('an inactive user is refused with KR_USER_NOT_ACTIVE', async () => {
  const member = await createMember(t.db, { status: 'inactive' })

  const response = await client(t).post('/auth/login', { email: member.user.email, password: member.user.password })

  await expectProblem(response, 403, 'KR_USER_NOT_ACTIVE')
})

test('a user whose e-mail is not verified is refused with KR_EMAIL_NOT_VERIFIED, but only after the right password', async () => {
  const member = await createMember(t.db, { verified: false })
  const c = client(t)

  await expectProblem(await c.post('/auth/login', { email: member.user.email, password: 'wrong-password' }), 401, 'KR_INVALID_CREDENTIALS')
  await expectProblem(await c.post('/auth/login', { email: member.user.email, password: member.user.password }), 403, 'KR_EMAIL_NOT_VERIFIED')
})

test('the admin sign-in refuses a member who is not an administrator with KR_NOT_ADMIN', async () => {
  const member = await createMember(t.db, { roleKey: 'read-write' })

  const response = await client(t).post('/auth/admin/login', { email: member.user.email, password: member.user.password })

  await expectProblem(response, 403, 'KR_NOT_ADMIN')
  expect(setCookieLine(response, SESSION_COOKIE)).toBeUndefined()
})

test('the admin sign-in always asks for a second factor, with enrolment when no authenticator is set up', async () => {
  const fresh = await createMember(t.db, { roleKey: 'admin' })
  const enrolled = await createMember(t.db, { roleKey: 'admin' })
  await enrollMfa(t.db, enrolled.user.id)

  const first = await signIn(client(t), fresh.user, 'admin')
  const second = await signIn(client(t), enrolled.user, 'admin')

  expect(first).toMatchObject({ kind: 'admin', requiresMfa: true, mfaEnrollment: true, adminUiAllowed: false, roles: ['User', 'Administrator'] })
  expect(second).toMatchObject({ kind: 'admin', requiresMfa: true, mfaEnrollment: false, adminUiAllowed: false })
  expect(await auditOf(t.db, { action: 'auth.signin', actorUserId: fresh.user.id })).toEqual([])
})

test('a user with an authenticator enrolled gets a session that requires MFA on the user sign-in too', async () => {
  const member = await createMember(t.db)
  await enrollMfa(t.db, member.user.id)

  const body = await signIn(client(t), member.user)

  expect(body).toMatchObject({ kind: 'user', requiresMfa: true, mfaEnrollment: false })
})

test('a user with only an unconfirmed authenticator signs in without MFA, unless the organisation enforces it', async () => {
  const plain = await createMember(t.db)
  await enrollMfa(t.db, plain.user.id, { confirmed: false })
  const enforced = await createMember(t.db, { tenant: await createTenant(t.db, { mfaEnforced: true }) })

  expect(await signIn(client(t), plain.user)).toMatchObject({ requiresMfa: false })
  expect(await signIn(client(t), enforced.user)).toMatchObject({ requiresMfa: true, mfaEnrollment: true })
})

test('a user without an active membership is refused with a KR-TENANT- code', async () => {
  const loner = await createUser(t.db)
  const suspended = await createUser(t.db)
  await addMembership(t.db, (await createTenant(t.db)).id, suspended.id, { status: 'suspended' })

  const none = await expectProblem(await client(t).post('/auth/login', { email: loner.email, password: loner.password }), 403)
  const inactive = await expectProblem(await client(t).post('/auth/login', { email: suspended.email, password: suspended.password }), 403)

  expect(none.code).toMatch(/^KR-TENANT-/)
  expect(inactive.code).toMatch(/^KR-TENANT-/)
})

test('tenantSlug chooses among the user’s organisations; one they do not belong to is refused', async () => {
  const member = await createMember(t.db)
  const second = await createTenant(t.db)
  await addMembership(t.db, second.id, member.user.id, { isDefault: false, roleKey: 'read-only' })
  const foreign = await createTenant(t.db)
  const c = client(t)

  const defaultOne = await signIn(c, member.user)
  const chosen = await c.post('/auth/login', { email: member.user.email, password: member.user.password, tenantSlug: second.slug })
  const refused = await c.post('/auth/login', { email: member.user.email, password: member.user.password, tenantSlug: foreign.slug })

  expect(defaultOne.tenantId).toBe(member.tenant.id)
  expect(await chosen.json()).toMatchObject({ tenantId: second.id, tenantSlug: second.slug, roles: ['User', 'ReadOnly'] })
  expect((await expectProblem(refused, 403)).code).toMatch(/^KR-TENANT-/)
})

test('signing in again replaces the browser’s previous session', async () => {
  const member = await createMember(t.db)
  const c = client(t)
  await signIn(c, member.user)
  const firstToken = c.jar.get(SESSION_COOKIE)

  await signIn(c, member.user)

  expect(c.jar.get(SESSION_COOKIE)).not.toBe(firstToken)
  const old = client(t)
  old.jar.set(SESSION_COOKIE, firstToken ?? '')
  await expectProblem(await old.get('/auth/session'), 401, 'KR_UNAUTHENTICATED')
})

import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { mfaSecrets } from '#server/db/schema'
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
  wrongTotp,
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

async function secretRow(userId: string) {
  const [row] = await t.db.select().from(mfaSecrets).where(eq(mfaSecrets.userId, userId))
  return row
}

test('a session waiting for its second factor can read itself but do nothing else', async () => {
  const member = await createMember(t.db)
  await enrollMfa(t.db, member.user.id)
  const c = client(t)
  await signIn(c, member.user)

  const session = await c.get('/auth/session')
  expect(session.status).toBe(200)
  expect(await session.json()).toMatchObject({ userId: member.user.id, requiresMfa: true, adminUiAllowed: false })

  await expectProblem(await c.get('/auth/devices'), 401, 'KR_MFA_REQUIRED')
  await expectProblem(await c.post('/auth/devices/register', { deviceId: 'phone-1', platform: 'ios' }), 401, 'KR_MFA_REQUIRED')
  await expectProblem(await c.delete('/auth/devices/phone-1'), 401, 'KR_MFA_REQUIRED')
  await expectProblem(await c.post('/auth/session/refresh'), 401, 'KR_MFA_REQUIRED')
  await expectProblem(await c.post('/auth/password/set', { currentPassword: member.user.password, newPassword: 'a-new-password-1' }), 401, 'KR_MFA_REQUIRED')
})

test('the right code finishes the sign-in with a new session token; the half-signed-in token stops working', async () => {
  const member = await createMember(t.db)
  const secret = await enrollMfa(t.db, member.user.id)
  const c = client(t)
  await signIn(c, member.user)
  const pendingToken = c.jar.get(SESSION_COOKIE)
  const pendingCsrf = c.jar.get(CSRF_COOKIE)
  const now = t.now().getTime()

  const response = await c.post('/auth/mfa/verify', { code: await totpAt(secret, t.now()) })

  expect(response.status, await show(response)).toBe(200)
  const body = (await response.json()) as SessionBody
  expect(body).toMatchObject({ userId: member.user.id, tenantId: member.tenant.id, kind: 'user', requiresMfa: false, adminUiAllowed: false })
  expect(body.sessionExpiresAtUtc).toBe(new Date(now + 30 * MINUTE).toISOString())
  const fullToken = c.jar.get(SESSION_COOKIE)
  expect(fullToken).toBeTruthy()
  expect(fullToken).not.toBe(pendingToken)
  expect(c.jar.get(CSRF_COOKIE)).not.toBe(pendingCsrf)
  expect((await c.get('/auth/devices')).status).toBe(200)

  const old = client(t)
  old.jar.set(SESSION_COOKIE, pendingToken ?? '')
  await expectProblem(await old.get('/auth/session'), 401, 'KR_UNAUTHENTICATED')

  const audit = (await auditOf(t.db, { actorUserId: member.user.id })).map((e) => e.action)
  expect(audit).toContain('auth.mfa.verified')
  expect(audit).toContain('auth.signin')
  expect(audit).not.toContain('auth.mfa.enrolled')
})

test('a code with spaces is accepted, as authenticator apps show it', async () => {
  const member = await createMember(t.db)
  const secret = await enrollMfa(t.db, member.user.id)
  const c = client(t)
  await signIn(c, member.user)
  const code = await totpAt(secret, t.now())

  const response = await c.post('/auth/mfa/verify', { code: `${code.slice(0, 3)} ${code.slice(3)}` })

  expect(response.status, await show(response)).toBe(200)
})

test('a wrong code answers 400 with errors.code, and the session still waits for the second factor', async () => {
  const member = await createMember(t.db)
  const secret = await enrollMfa(t.db, member.user.id)
  const c = client(t)
  await signIn(c, member.user)

  const wrong = await expectProblem(await c.post('/auth/mfa/verify', { code: await wrongTotp(secret, t.now()) }), 400, 'KR_MFA_INVALID')
  const malformed = await expectProblem(await c.post('/auth/mfa/verify', { code: '12ab56' }), 400, 'KR_VALIDATION')
  const missing = await expectProblem(await c.post('/auth/mfa/verify', {}), 400, 'KR_VALIDATION')

  expect(wrong.errors?.code?.length).toBe(1)
  expect(malformed.errors?.code?.length).toBe(1)
  expect(missing.errors?.code?.length).toBe(1)
  expect(await (await c.get('/auth/session')).json()).toMatchObject({ requiresMfa: true })
  await expectProblem(await c.get('/auth/devices'), 401, 'KR_MFA_REQUIRED')
  expect(await auditOf(t.db, { action: 'auth.mfa.failed', actorUserId: member.user.id })).toHaveLength(1)
})

test('a code is accepted once: the same code from a second sign-in is refused as a replay', async () => {
  const member = await createMember(t.db)
  const secret = await enrollMfa(t.db, member.user.id)
  const code = await totpAt(secret, t.now())
  const first = client(t)
  const second = client(t)
  await signIn(first, member.user)
  await signIn(second, member.user)

  const accepted = await first.post('/auth/mfa/verify', { code })
  const replayed = await second.post('/auth/mfa/verify', { code })

  expect(accepted.status, await show(accepted)).toBe(200)
  const body = await expectProblem(replayed, 400, 'KR_MFA_INVALID')
  expect(body.errors?.code).toBeDefined()

  t.now.advance(30_000)
  const next = await second.post('/auth/mfa/verify', { code: await totpAt(secret, t.now()) })
  expect(next.status, await show(next)).toBe(200)
})

test('POST /auth/mfa/verify needs a session that is waiting for it', async () => {
  const member = await createMember(t.db)
  await enrollMfa(t.db, member.user.id)
  const full = await signedInClient(t, member)

  await expectProblem(await client(t).post('/auth/mfa/verify', { code: '123456' }), 401, 'KR_UNAUTHENTICATED')
  await expectProblem(await full.post('/auth/mfa/verify', { code: '123456' }), 409, 'KR_MFA_NOT_PENDING')
})

test('a half-finished sign-in expires after 5 minutes', async () => {
  const member = await createMember(t.db)
  const secret = await enrollMfa(t.db, member.user.id)
  const c = client(t)
  const pending = await signIn(c, member.user)

  t.now.advance(6 * MINUTE)
  const reload = await c.get('/auth/session')
  const late = await c.post('/auth/mfa/verify', { code: await totpAt(secret, t.now()) })

  expect(Date.parse(pending.sessionExpiresAtUtc) - Date.parse(pending.issuedAtUtc)).toBe(5 * MINUTE)
  await expectProblem(reload, 401, 'KR_UNAUTHENTICATED')
  // The browser still holds the dead session's cookie: an unsafe call says the session expired.
  await expectProblem(late, 401, 'KR_SESSION_EXPIRED')
})

test('enrolment: the admin sign-in hands out a secret, and a code from it confirms it and opens the admin UI', async () => {
  const member = await createMember(t.db, { roleKey: 'admin' })
  const c = client(t)
  const pending = await signIn(c, member.user, 'admin')
  expect(pending).toMatchObject({ requiresMfa: true, mfaEnrollment: true, adminUiAllowed: false })

  const enrollment = await c.get('/auth/mfa/enrollment')
  expect(enrollment.status, await show(enrollment)).toBe(200)
  expect(enrollment.headers.get('cache-control')).toBe('no-store')
  const { secret, otpauthUri } = (await enrollment.json()) as { secret: string; otpauthUri: string }
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/)
  const uri = new URL(otpauthUri)
  expect(uri.protocol).toBe('otpauth:')
  expect(uri.host).toBe('totp')
  expect(uri.searchParams.get('secret')).toBe(secret)
  expect(uri.searchParams.get('issuer')).toBe('Site Portal')
  expect(decodeURIComponent(uri.pathname)).toContain(member.user.email)
  const again = (await (await c.get('/auth/mfa/enrollment')).json()) as { secret: string }
  expect(again.secret).toBe(secret)
  expect((await secretRow(member.user.id))?.confirmedAt).toBeNull()

  const verified = await c.post('/auth/mfa/verify', { code: await totpAt(secret, t.now()) })

  expect(verified.status, await show(verified)).toBe(200)
  expect(await verified.json()).toMatchObject({ kind: 'admin', requiresMfa: false, adminUiAllowed: true, roles: ['User', 'Administrator'] })
  expect((await secretRow(member.user.id))?.confirmedAt?.toISOString()).toBe(t.now().toISOString())
  const actions = (await auditOf(t.db, { actorUserId: member.user.id, tenantId: member.tenant.id })).map((e) => e.action)
  expect(actions).toEqual(expect.arrayContaining(['auth.mfa.enrolled', 'auth.mfa.verified', 'auth.signin']))

  t.now.advance(30_000)
  const next = await signIn(client(t), member.user, 'admin')
  expect(next).toMatchObject({ requiresMfa: true, mfaEnrollment: false })
})

test('a wrong code during enrolment leaves the authenticator unconfirmed', async () => {
  const member = await createMember(t.db, { roleKey: 'admin' })
  const c = client(t)
  await signIn(c, member.user, 'admin')
  const { secret } = (await (await c.get('/auth/mfa/enrollment')).json()) as { secret: string }

  await expectProblem(await c.post('/auth/mfa/verify', { code: await wrongTotp(secret, t.now()) }), 400, 'KR_MFA_INVALID')

  expect((await secretRow(member.user.id))?.confirmedAt).toBeNull()
})

test('a password alone cannot replace an enrolled authenticator', async () => {
  const member = await createMember(t.db, { roleKey: 'admin' })
  const secret = await enrollMfa(t.db, member.user.id)
  const c = client(t)
  await signIn(c, member.user, 'admin')

  await expectProblem(await c.get('/auth/mfa/enrollment'), 409, 'KR_MFA_ALREADY_ENROLLED')

  expect((await secretRow(member.user.id))?.secret).toBe(secret)
})

test('an enrolment started before the authenticator was confirmed elsewhere cannot overwrite it', async () => {
  const member = await createMember(t.db, { roleKey: 'admin' })
  const attacker = client(t)
  await signIn(attacker, member.user, 'admin')
  // Meanwhile the owner finishes enrolment in another browser.
  const secret = await enrollMfa(t.db, member.user.id)

  await expectProblem(await attacker.get('/auth/mfa/enrollment'), 409, 'KR_MFA_ALREADY_ENROLLED')

  const row = await secretRow(member.user.id)
  expect(row?.secret).toBe(secret)
  expect(row?.confirmedAt).not.toBeNull()
})

test('a full session cannot start an enrolment', async () => {
  const member = await createMember(t.db, { roleKey: 'admin' })
  const c = await signedInClient(t, member, { kind: 'admin' })

  await expectProblem(await c.get('/auth/mfa/enrollment'), 409, 'KR_MFA_ALREADY_ENROLLED')
  expect(await secretRow(member.user.id)).toBeUndefined()
})

test('adminUiAllowed needs an admin sign-in with its second factor: an administrator’s user sign-in does not give it', async () => {
  const member = await createMember(t.db, { roleKey: 'admin' })
  const secret = await enrollMfa(t.db, member.user.id)
  const user = client(t)
  const admin = client(t)

  await signIn(user, member.user, 'user')
  const userVerified = await user.post('/auth/mfa/verify', { code: await totpAt(secret, t.now()) })
  t.now.advance(30_000)
  const adminPending = await signIn(admin, member.user, 'admin')
  const adminVerified = await admin.post('/auth/mfa/verify', { code: await totpAt(secret, t.now()) })

  expect(await userVerified.json()).toMatchObject({ kind: 'user', requiresMfa: false, adminUiAllowed: false })
  expect(adminPending.adminUiAllowed).toBe(false)
  expect(await adminVerified.json()).toMatchObject({ kind: 'admin', requiresMfa: false, adminUiAllowed: true })
  expect(await (await admin.get('/auth/session')).json()).toMatchObject({ adminUiAllowed: true })
})

test('a code from before the last accepted one is refused, not an error, when clocks disagree', async () => {
  const member = await createMember(t.db)
  const secret = await enrollMfa(t.db, member.user.id)
  const c = client(t)
  await signIn(c, member.user)
  const accepted = await c.post('/auth/mfa/verify', { code: await totpAt(secret, t.now()) })
  expect(accepted.status, await show(accepted)).toBe(200)

  // Another instance whose clock is two minutes behind.
  t.now.advance(-2 * MINUTE)
  try {
    const behind = client(t)
    await signIn(behind, member.user)
    const response = await behind.post('/auth/mfa/verify', { code: await totpAt(secret, t.now()) })

    await expectProblem(response, 400, 'KR_MFA_INVALID')
  } finally {
    t.now.advance(2 * MINUTE)
  }
})

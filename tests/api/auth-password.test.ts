import { afterAll, beforeAll, expect, test } from 'vitest'
import {
  auditOf,
  client,
  createMember,
  show,
  expectProblem,
  mailsTo,
  signIn,
  signedInClient,
  tokenFromMail,
  uniqueEmail,
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

const MINUTE = 60_000
const NEW_PASSWORD = 'a brand new passphrase'

async function resetToken(email: string): Promise<string> {
  const mail = (await mailsTo(t.db, email)).findLast((m) => m.template === 'reset-password')
  if (!mail) throw new Error(`no reset-password mail to ${email}`)
  return tokenFromMail(mail.textBody, '/auth/forgot-password')
}

test('a reset request answers the same 202 for a known and an unknown address, and mails only the known one', async () => {
  const member = await createMember(t.db)
  const unknown = uniqueEmail('nobody')
  const c = client(t)

  const known = await c.post('/auth/password/reset/request', { email: member.user.email })
  const stranger = await c.post('/auth/password/reset/request', { email: unknown })
  await settleAfterResponse(t.db)

  expect(known.status, await show(known)).toBe(202)
  expect(stranger.status).toBe(202)
  expect(await known.json()).toEqual(await stranger.json())
  const mails = await mailsTo(t.db, member.user.email)
  expect(mails.map((m) => m.template)).toEqual(['reset-password'])
  expect(mails[0]?.textBody).toContain('http://portal.test/auth/forgot-password?token=')
  expect(await mailsTo(t.db, unknown)).toEqual([])
  expect(await auditOf(t.db, { action: 'auth.password.reset.requested', actorUserId: member.user.id })).toHaveLength(1)
})

test('a reset request for a blocked account answers the same 202 and sends nothing', async () => {
  const member = await createMember(t.db, { status: 'blocked' })

  const response = await client(t).post('/auth/password/reset/request', { email: member.user.email })
  await settleAfterResponse(t.db)

  expect(response.status).toBe(202)
  expect(await mailsTo(t.db, member.user.email)).toEqual([])
})

test('a reset request with a malformed address answers 400 errors.email', async () => {
  const body = await expectProblem(await client(t).post('/auth/password/reset/request', { email: 'not-an-address' }), 400, 'KR_VALIDATION')

  expect(Object.keys(body.errors ?? {})).toEqual(['email'])
})

test('confirming a reset sets the password, signs the user out everywhere, and the link works once', async () => {
  const member = await createMember(t.db)
  const laptop = await signedInClient(t, member)
  const phone = client(t)
  await signIn(phone, member.user)
  const c = client(t)
  await c.post('/auth/password/reset/request', { email: member.user.email })
  await settleAfterResponse(t.db)
  const token = await resetToken(member.user.email)

  const response = await c.post('/auth/password/reset/confirm', { token, password: NEW_PASSWORD })

  expect(response.status, await show(response)).toBe(200)
  expect(await response.json()).toEqual({ status: 'password-reset' })
  await expectProblem(await laptop.get('/auth/session'), 401, 'KR_UNAUTHENTICATED')
  await expectProblem(await phone.get('/auth/session'), 401, 'KR_UNAUTHENTICATED')
  await expectProblem(await c.post('/auth/login', { email: member.user.email, password: member.user.password }), 401, 'KR_INVALID_CREDENTIALS')
  expect((await signIn(client(t), { email: member.user.email, password: NEW_PASSWORD })).userId).toBe(member.user.id)

  const again = await expectProblem(await c.post('/auth/password/reset/confirm', { token, password: 'yet another password' }), 400, 'KR_TOKEN_INVALID')
  expect(again.errors?.token).toBeDefined()
  expect((await signIn(client(t), { email: member.user.email, password: NEW_PASSWORD })).userId).toBe(member.user.id)
  expect(await auditOf(t.db, { action: 'auth.password.reset', actorUserId: member.user.id })).toEqual([
    expect.objectContaining({ tenantId: null, correlationId: response.headers.get('x-correlation-id') }),
  ])
})

test('once a reset succeeds, the older links mailed before it stop working too', async () => {
  const member = await createMember(t.db)
  const c = client(t)
  await c.post('/auth/password/reset/request', { email: member.user.email })
  await settleAfterResponse(t.db)
  const older = await resetToken(member.user.email)
  await c.post('/auth/password/reset/request', { email: member.user.email })
  await settleAfterResponse(t.db)
  const newer = await resetToken(member.user.email)
  expect(newer).not.toBe(older)

  expect((await c.post('/auth/password/reset/confirm', { token: newer, password: NEW_PASSWORD })).status).toBe(200)
  const stale = await c.post('/auth/password/reset/confirm', { token: older, password: 'the attacker’s choice' })

  await expectProblem(stale, 400, 'KR_TOKEN_INVALID')
  expect((await signIn(client(t), { email: member.user.email, password: NEW_PASSWORD })).userId).toBe(member.user.id)
})

test('a reset link expires after one hour', async () => {
  const member = await createMember(t.db)
  const c = client(t)
  await c.post('/auth/password/reset/request', { email: member.user.email })
  await settleAfterResponse(t.db)
  const token = await resetToken(member.user.email)

  t.now.advance(61 * MINUTE)
  const response = await c.post('/auth/password/reset/confirm', { token, password: NEW_PASSWORD })

  await expectProblem(response, 400, 'KR_TOKEN_INVALID')
  expect((await signIn(client(t), member.user)).userId).toBe(member.user.id)
})

test('a reset link still works at 59 minutes', async () => {
  const member = await createMember(t.db)
  const c = client(t)
  await c.post('/auth/password/reset/request', { email: member.user.email })
  await settleAfterResponse(t.db)
  const token = await resetToken(member.user.email)

  t.now.advance(59 * MINUTE)

  expect((await c.post('/auth/password/reset/confirm', { token, password: NEW_PASSWORD })).status).toBe(200)
})

test('a too-short new password is refused with errors.password and does not use up the link', async () => {
  const member = await createMember(t.db)
  const c = client(t)
  await c.post('/auth/password/reset/request', { email: member.user.email })
  await settleAfterResponse(t.db)
  const token = await resetToken(member.user.email)

  const short = await expectProblem(await c.post('/auth/password/reset/confirm', { token, password: 'short' }), 400, 'KR_VALIDATION')
  const ok = await c.post('/auth/password/reset/confirm', { token, password: NEW_PASSWORD })

  expect(Object.keys(short.errors ?? {})).toEqual(['password'])
  expect(ok.status, await show(ok)).toBe(200)
})

test('a reset link cannot verify an e-mail address, yet confirming the reset proves the mailbox', async () => {
  const member = await createMember(t.db, { verified: false })
  const c = client(t)
  await c.post('/auth/password/reset/request', { email: member.user.email })
  await settleAfterResponse(t.db)
  const token = await resetToken(member.user.email)

  await expectProblem(await c.post('/auth/email/verify', { token }), 400, 'KR_TOKEN_INVALID')
  await expectProblem(await c.post('/auth/login', { email: member.user.email, password: member.user.password }), 403, 'KR_EMAIL_NOT_VERIFIED')

  // The link proves the mailbox: resetting also verifies the address.
  expect((await c.post('/auth/password/reset/confirm', { token, password: NEW_PASSWORD })).status).toBe(200)
  expect((await signIn(client(t), { email: member.user.email, password: NEW_PASSWORD })).userId).toBe(member.user.id)
})

test('changing the password with a wrong current password answers 400 errors.currentPassword and changes nothing', async () => {
  const member = await createMember(t.db)
  const c = await signedInClient(t, member)

  const body = await expectProblem(await c.post('/auth/password/set', { currentPassword: 'not it at all', newPassword: NEW_PASSWORD }), 400)

  expect(Object.keys(body.errors ?? {})).toEqual(['currentPassword'])
  expect((await c.get('/auth/session')).status).toBe(200)
  expect((await signIn(client(t), member.user)).userId).toBe(member.user.id)
})

test('changing the password checks both fields', async () => {
  const member = await createMember(t.db)
  const c = await signedInClient(t, member)

  const empty = await expectProblem(await c.post('/auth/password/set', {}), 400, 'KR_VALIDATION')
  const short = await expectProblem(await c.post('/auth/password/set', { currentPassword: member.user.password, newPassword: '1234567' }), 400, 'KR_VALIDATION')

  expect(Object.keys(empty.errors ?? {}).sort()).toEqual(['currentPassword', 'newPassword'])
  expect(Object.keys(short.errors ?? {})).toEqual(['newPassword'])
})

test('changing the password ends the user’s other sessions and keeps this one', async () => {
  const member = await createMember(t.db)
  const other = await createMember(t.db, { tenant: member.tenant })
  const here = await signedInClient(t, member)
  const elsewhere = await signedInClient(t, member)
  const colleague = await signedInClient(t, other)

  const response = await here.post('/auth/password/set', { currentPassword: member.user.password, newPassword: NEW_PASSWORD })

  expect(response.status, await show(response)).toBe(204)
  expect((await here.get('/auth/session')).status).toBe(200)
  expect((await here.get('/auth/devices')).status).toBe(200)
  await expectProblem(await elsewhere.get('/auth/session'), 401, 'KR_UNAUTHENTICATED')
  expect((await colleague.get('/auth/session')).status).toBe(200)
  await expectProblem(await client(t).post('/auth/login', { email: member.user.email, password: member.user.password }), 401, 'KR_INVALID_CREDENTIALS')
  expect((await signIn(client(t), { email: member.user.email, password: NEW_PASSWORD })).userId).toBe(member.user.id)
  expect(await auditOf(t.db, { action: 'auth.password.changed', actorUserId: member.user.id })).toEqual([
    expect.objectContaining({ tenantId: member.tenant.id }),
  ])
})

test('changing the password needs a session', async () => {
  await expectProblem(await client(t).post('/auth/password/set', { currentPassword: 'x', newPassword: NEW_PASSWORD }), 401, 'KR_UNAUTHENTICATED')
})

test('guessing the current password on the change form is throttled like sign-in', async () => {
  const member = await createMember(t.db)
  const c = await signedInClient(t, member)
  for (let attempt = 1; attempt < 5; attempt++) {
    await expectProblem(await c.post('/auth/password/set', { currentPassword: `guess ${attempt}`, newPassword: NEW_PASSWORD }), 400, 'KR_VALIDATION')
  }
  const locked = await expectProblem(await c.post('/auth/password/set', { currentPassword: 'guess 5', newPassword: NEW_PASSWORD }), 429, 'KR_THROTTLED')
  expect(locked.retryAfterSeconds).toBeGreaterThan(0)
  // Even the right password waits until the lock ends.
  await expectProblem(await c.post('/auth/password/set', { currentPassword: member.user.password, newPassword: NEW_PASSWORD }), 429, 'KR_THROTTLED')
  expect(await auditOf(t.db, { action: 'auth.lockout', actorUserId: member.user.id })).toHaveLength(1)
})

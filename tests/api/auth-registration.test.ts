import { randomBytes } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { users } from '#server/db/schema'
import {
  auditOf,
  client,
  createMember,
  show,
  expectProblem,
  mailsTo,
  signIn,
  tokenFromMail,
  uniqueEmail,
  uniqueSuffix,
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

function registration(overrides: Record<string, unknown> = {}) {
  return {
    displayName: 'Robin Register',
    email: uniqueEmail('register'),
    password: 'a perfectly fine password',
    organisationName: `Register Builders ${uniqueSuffix()}`,
    ...overrides,
  }
}

async function usersWithEmail(email: string) {
  return t.db.select({ id: users.id, emailVerifiedAt: users.emailVerifiedAt }).from(users).where(sql`lower(${users.email}) = ${email.toLowerCase()}`)
}

async function verificationToken(email: string): Promise<string> {
  const mails = await mailsTo(t.db, email)
  const mail = mails.find((m) => m.template === 'verify-email')
  if (!mail) throw new Error(`no verify-email mail to ${email}: ${JSON.stringify(mails)}`)
  return tokenFromMail(mail.textBody, '/auth/verify-email')
}

test('registration answers 202, mails a link, and the account works only once the link is opened', async () => {
  const input = registration()
  const c = client(t)

  const response = await c.post('/auth/register-self', input)
  await settleAfterResponse(t.db)

  expect(response.status, await show(response)).toBe(202)
  expect(await response.json()).toEqual({ status: 'verification-sent', email: input.email })
  const [created] = await usersWithEmail(input.email)
  expect(created?.emailVerifiedAt).toBeNull()
  await expectProblem(await c.post('/auth/login', { email: input.email, password: input.password }), 403, 'KR_EMAIL_NOT_VERIFIED')

  const mails = await mailsTo(t.db, input.email)
  expect(mails).toHaveLength(1)
  expect(mails[0]).toMatchObject({ template: 'verify-email' })
  expect(mails[0]?.textBody).toContain('http://portal.test/auth/verify-email?token=')
  const token = tokenFromMail(mails[0]?.textBody ?? '', '/auth/verify-email')

  const verified = await c.post('/auth/email/verify', { token })
  expect(verified.status, await show(verified)).toBe(200)
  expect(await verified.json()).toEqual({ status: 'verified' })
  const reused = await expectProblem(await c.post('/auth/email/verify', { token }), 400, 'KR_TOKEN_INVALID')
  expect(reused.errors?.token).toBeDefined()

  const session = await signIn(c, input)
  expect(session).toMatchObject({
    userId: created?.id,
    displayName: input.displayName,
    email: input.email,
    tenantName: input.organisationName,
    roles: ['User', 'Administrator'],
    kind: 'user',
    requiresMfa: false,
  })
  expect(session.tenantSlug).toMatch(/^register-builders-[0-9a-f]{10}-[0-9a-f]{6}$/)
  expect(mails[0]?.tenantId).toBe(session.tenantId)
  const actions = (await auditOf(t.db, { actorUserId: created?.id ?? '' })).map((e) => e.action)
  expect(actions).toEqual(expect.arrayContaining(['auth.registered', 'auth.email.verified', 'auth.signin']))
})

test('the new organisation is the user’s own: an administrator sign-in is allowed for it', async () => {
  const input = registration()
  const c = client(t)
  await c.post('/auth/register-self', input)
  await settleAfterResponse(t.db)
  await c.post('/auth/email/verify', { token: await verificationToken(input.email) })

  const admin = await signIn(client(t), input, 'admin')

  expect(admin).toMatchObject({ kind: 'admin', requiresMfa: true, mfaEnrollment: true })
})

test('a verification link expires after 24 hours', async () => {
  const input = registration()
  const c = client(t)
  await c.post('/auth/register-self', input)
  await settleAfterResponse(t.db)
  const token = await verificationToken(input.email)

  t.now.advance(25 * HOUR)
  const response = await c.post('/auth/email/verify', { token })

  await expectProblem(response, 400, 'KR_TOKEN_INVALID')
  await expectProblem(await c.post('/auth/login', { email: input.email, password: input.password }), 403, 'KR_EMAIL_NOT_VERIFIED')
})

test('a link still works just before its 24 hours are over', async () => {
  const input = registration()
  const c = client(t)
  await c.post('/auth/register-self', input)
  await settleAfterResponse(t.db)
  const token = await verificationToken(input.email)

  t.now.advance(23 * HOUR)

  expect((await c.post('/auth/email/verify', { token })).status).toBe(200)
})

test('an unknown or malformed verification token is refused', async () => {
  const c = client(t)

  const unknown = await expectProblem(await c.post('/auth/email/verify', { token: randomBytes(32).toString('base64url') }), 400, 'KR_TOKEN_INVALID')
  const short = await expectProblem(await c.post('/auth/email/verify', { token: 'abc' }), 400, 'KR_VALIDATION')
  const missing = await expectProblem(await c.post('/auth/email/verify', {}), 400, 'KR_VALIDATION')

  expect(unknown.errors?.token).toBeDefined()
  expect(short.errors?.token).toBeDefined()
  expect(missing.errors?.token).toBeDefined()
})

test('registering an address that already has an account answers the same 202 and mails account-exists instead', async () => {
  const existing = await createMember(t.db)
  const input = registration({ email: existing.user.email.toUpperCase(), password: 'another password entirely' })
  const c = client(t)

  const response = await c.post('/auth/register-self', input)
  await settleAfterResponse(t.db)

  expect(response.status, await show(response)).toBe(202)
  expect(await response.json()).toEqual({ status: 'verification-sent', email: input.email })
  expect(await usersWithEmail(existing.user.email)).toHaveLength(1)
  const mails = await mailsTo(t.db, existing.user.email)
  expect(mails.map((m) => m.template)).toEqual(['account-exists'])
  expect(mails[0]?.textBody).not.toContain('token=')
  // The stranger's password did not replace the owner's.
  expect((await signIn(client(t), existing.user)).userId).toBe(existing.user.id)
  await expectProblem(await c.post('/auth/login', { email: existing.user.email, password: input.password }), 401, 'KR_INVALID_CREDENTIALS')
})

test('a password shorter than 8 characters is refused with errors.password, and nothing is created', async () => {
  const input = registration({ password: 'short12' })

  const body = await expectProblem(await client(t).post('/auth/register-self', input), 400, 'KR_VALIDATION')

  expect(Object.keys(body.errors ?? {})).toEqual(['password'])
  expect(await usersWithEmail(input.email)).toEqual([])
  expect(await mailsTo(t.db, input.email)).toEqual([])
})

test('a 200-character passphrase works from registration to sign-in', async () => {
  const passphrase = 'correct horse battery staple '.repeat(7).slice(0, 200)
  expect(passphrase).toHaveLength(200)
  const input = registration({ password: passphrase })
  const c = client(t)

  expect((await c.post('/auth/register-self', input)).status).toBe(202)
  await settleAfterResponse(t.db)
  expect((await c.post('/auth/email/verify', { token: await verificationToken(input.email) })).status).toBe(200)

  expect((await signIn(client(t), { email: input.email, password: passphrase })).email).toBe(input.email)
  await expectProblem(await c.post('/auth/login', { email: input.email, password: passphrase.slice(0, 199) }), 401, 'KR_INVALID_CREDENTIALS')
})

test('registration input is checked field by field', async () => {
  const c = client(t)

  const empty = await expectProblem(await c.post('/auth/register-self', {}), 400, 'KR_VALIDATION')
  const blank = await expectProblem(
    await c.post('/auth/register-self', { displayName: '  ', email: 'nope', password: 'long enough password', organisationName: '' }),
    400,
    'KR_VALIDATION',
  )
  const tooLong = await expectProblem(await c.post('/auth/register-self', registration({ displayName: 'x'.repeat(121) })), 400, 'KR_VALIDATION')

  expect(Object.keys(empty.errors ?? {}).sort()).toEqual(['displayName', 'email', 'organisationName', 'password'])
  expect(Object.keys(blank.errors ?? {}).sort()).toEqual(['displayName', 'email', 'organisationName'])
  expect(Object.keys(tooLong.errors ?? {})).toEqual(['displayName'])
})

test('two registrations of one new address at the same moment make one account; the other gets "account exists"', async () => {
  const input = registration()

  const responses = await Promise.all([client(t).post('/auth/register-self', input), client(t).post('/auth/register-self', { ...input, organisationName: 'Second Try Ltd' })])
  await settleAfterResponse(t.db)

  expect(responses.map((r) => r.status)).toEqual([202, 202])
  expect(await usersWithEmail(input.email)).toHaveLength(1)
  expect((await mailsTo(t.db, input.email)).map((m) => m.template).sort()).toEqual(['account-exists', 'verify-email'])
})

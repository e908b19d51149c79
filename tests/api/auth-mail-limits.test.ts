import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { settleAfterResponse } from '#server/api/auth/after-response'
import { rateLimits } from '#server/db/schema'
import { LIMITS } from '#server/domain/auth/limits'
import { PURGE_EVERY_MS } from '#server/domain/auth/rate-limiter'
import { client, createMember, expectProblem, mailsTo, show, uniqueAddress, uniqueEmail, uniqueSuffix } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend()
})

afterAll(async () => {
  await settleAfterResponse(t.db)
  await t.close()
})

const MINUTE = 60_000
const HOUR = 60 * MINUTE

const times = <T>(n: number, value: T): T[] => Array.from({ length: n }, () => value)

function resetRequest(remoteAddress: string, email: string): Promise<Response> {
  return client(t, { remoteAddress }).post('/auth/password/reset/request', { email })
}

function registration(email: string) {
  return { displayName: 'Rita Limit', email, password: 'a perfectly fine password', organisationName: `Limits ${uniqueSuffix()}` }
}

async function expectMailLimited(response: Response): Promise<number> {
  const body = await expectProblem(response, 429, 'KR_THROTTLED')
  expect(body.retryAfterSeconds).toBeGreaterThan(0)
  expect(body.retryAfterSeconds).toBeLessThanOrEqual(HOUR / 1000)
  expect(response.headers.get('retry-after')).toBe(String(body.retryAfterSeconds))
  return body.retryAfterSeconds ?? 0
}

test('five reset mails an hour per address: the sixth request is 429 with Retry-After and queues nothing, wherever it comes from', async () => {
  const member = await createMember(t.db)

  const statuses: number[] = []
  for (let n = 1; n <= LIMITS.mailAddress.points; n++) statuses.push((await resetRequest(uniqueAddress(), member.user.email)).status)
  const refused = await resetRequest(uniqueAddress(), member.user.email)
  await settleAfterResponse(t.db)

  expect(statuses).toEqual(times(LIMITS.mailAddress.points, 202))
  await expectMailLimited(refused)
  expect((await mailsTo(t.db, member.user.email)).map((m) => m.template)).toEqual(times(LIMITS.mailAddress.points, 'reset-password'))
  // Another address is not affected.
  expect((await resetRequest(uniqueAddress(), uniqueEmail('other'))).status).toBe(202)
})

test('an unknown address is limited exactly like a known one, so a 429 tells nothing about accounts', async () => {
  const known = await createMember(t.db)
  const unknown = uniqueEmail('nobody')

  const statuses = { known: [] as number[], unknown: [] as number[] }
  for (let n = 1; n <= LIMITS.mailAddress.points + 1; n++) {
    statuses.known.push((await resetRequest(uniqueAddress(), known.user.email)).status)
    statuses.unknown.push((await resetRequest(uniqueAddress(), unknown)).status)
  }
  await settleAfterResponse(t.db)

  expect(statuses.known).toEqual([...times(LIMITS.mailAddress.points, 202), 429])
  expect(statuses.unknown).toEqual(statuses.known)
})

test('the per-address reset limit ends with its hour', async () => {
  const member = await createMember(t.db)
  for (let n = 1; n <= LIMITS.mailAddress.points; n++) await resetRequest(uniqueAddress(), member.user.email)
  const wait = await expectMailLimited(await resetRequest(uniqueAddress(), member.user.email))

  t.now.advance(wait * 1000 - 1_000)
  await expectMailLimited(await resetRequest(uniqueAddress(), member.user.email))
  t.now.advance(1_000)
  const later = await resetRequest(uniqueAddress(), member.user.email)
  await settleAfterResponse(t.db)

  expect(later.status, await show(later)).toBe(202)
  expect(await mailsTo(t.db, member.user.email)).toHaveLength(LIMITS.mailAddress.points + 1)
})

test('one client gets twenty mail-sending calls an hour, all kinds together; another client is unaffected', async () => {
  const address = uniqueAddress()

  const statuses: number[] = []
  for (let n = 1; n <= LIMITS.mailClient.points / 2; n++) {
    statuses.push((await resetRequest(address, uniqueEmail('spray'))).status)
    statuses.push((await client(t, { remoteAddress: address }).post('/auth/register-self', registration(uniqueEmail('spray')))).status)
  }
  const refusedReset = await resetRequest(address, uniqueEmail('spray'))
  const refusedRegistration = await client(t, { remoteAddress: address }).post('/auth/register-self', registration(uniqueEmail('spray')))
  const elsewhere = await resetRequest(uniqueAddress(), uniqueEmail('spray'))
  await settleAfterResponse(t.db)

  expect(statuses.every((s) => s === 202)).toBe(true)
  expect(statuses).toHaveLength(LIMITS.mailClient.points)
  await expectMailLimited(refusedReset)
  await expectMailLimited(refusedRegistration)
  expect(elsewhere.status).toBe(202)
})

test('registering a known address again mails "account exists" at most five times an hour', async () => {
  const member = await createMember(t.db)

  const statuses: number[] = []
  for (let n = 1; n <= LIMITS.mailAddress.points + 2; n++) {
    statuses.push((await client(t, { remoteAddress: uniqueAddress() }).post('/auth/register-self', registration(member.user.email))).status)
  }
  await settleAfterResponse(t.db)

  expect(statuses).toEqual([...times(LIMITS.mailAddress.points, 202), 429, 429])
  expect((await mailsTo(t.db, member.user.email)).map((m) => m.template)).toEqual(times(LIMITS.mailAddress.points, 'account-exists'))
})

test('counters whose window has ended are deleted by a later call, not kept for ever', async () => {
  const email = uniqueEmail('purge')
  await resetRequest(uniqueAddress(), email)
  const key = `${LIMITS.mailAddress.prefix}:reset-password|${email}`
  expect(await t.db.select({ key: rateLimits.key }).from(rateLimits).where(eq(rateLimits.key, key))).toHaveLength(1)

  t.now.advance(HOUR + PURGE_EVERY_MS)
  await resetRequest(uniqueAddress(), uniqueEmail('other'))
  await settleAfterResponse(t.db)

  expect(await t.db.select({ key: rateLimits.key }).from(rateLimits).where(eq(rateLimits.key, key))).toEqual([])
})

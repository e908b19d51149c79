import { afterAll, beforeAll, expect, test } from 'vitest'
import {
  auditOf,
  client,
  createMember,
  show,
  enrollMfa,
  expectProblem,
  signIn,
  totpAt,
  uniqueAddress,
  uniqueEmail,
  wrongTotp,
  type TestClient,
} from '#tests/helpers/auth'
import { ACCOUNT_BACKOFF } from '#server/domain/auth/limits'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend()
})

afterAll(async () => {
  await t.close()
})

const MINUTE = 60_000
const LOCK_SECONDS = 15 * 60

function login(c: TestClient, email: string, password: string): Promise<Response> {
  return c.post('/auth/login', { email, password })
}

async function expectThrottled(response: Response): Promise<void> {
  const body = await expectProblem(response, 429, 'KR_THROTTLED')
  expect(body.retryAfterSeconds).toBeGreaterThan(0)
  expect(body.retryAfterSeconds).toBeLessThanOrEqual(LOCK_SECONDS)
  expect(response.headers.get('retry-after')).toBe(String(body.retryAfterSeconds))
}

test('five wrong passwords lock the account for that client: 429 with Retry-After, even for the right password, until 15 minutes pass', async () => {
  const member = await createMember(t.db)
  const c = client(t, { remoteAddress: uniqueAddress() })

  const statuses: number[] = []
  let lockedResponse: Response | undefined
  for (let attempt = 1; attempt <= 6 && !lockedResponse; attempt++) {
    const response = await login(c, member.user.email, `wrong-${attempt}`)
    statuses.push(response.status)
    if (response.status === 429) lockedResponse = response
  }

  expect(statuses.slice(0, 4)).toEqual([401, 401, 401, 401])
  expect(lockedResponse, `statuses: ${statuses.join(',')}`).toBeDefined()
  if (lockedResponse) await expectThrottled(lockedResponse)
  await expectThrottled(await login(c, member.user.email, member.user.password))
  expect(await auditOf(t.db, { action: 'auth.lockout', actorUserId: member.user.id })).toEqual([
    expect.objectContaining({ tenantId: null, data: expect.objectContaining({ kind: 'user', lockedBy: 'account-client' }) }),
  ])
  expect(await auditOf(t.db, { action: 'auth.signin.failed', actorUserId: member.user.id })).toHaveLength(statuses.length - 1)

  t.now.advance(14 * MINUTE)
  await expectThrottled(await login(c, member.user.email, member.user.password))
  t.now.advance(MINUTE + 1_000)
  const after = await login(c, member.user.email, member.user.password)
  expect(after.status, await show(after)).toBe(200)
})

test('the lock on one account leaves other accounts at the same address alone', async () => {
  const locked = await createMember(t.db)
  const other = await createMember(t.db)
  const c = client(t, { remoteAddress: uniqueAddress() })
  for (let attempt = 1; attempt <= 5; attempt++) await login(c, locked.user.email, 'wrong-password')

  await expectThrottled(await login(c, locked.user.email, locked.user.password))
  const response = await login(c, other.user.email, other.user.password)

  expect(response.status, await show(response)).toBe(200)
})

test('an unknown e-mail address locks the same way, so a lock reveals nothing about which accounts exist', async () => {
  const email = uniqueEmail('ghost')
  const c = client(t, { remoteAddress: uniqueAddress() })

  const statuses: number[] = []
  for (let attempt = 1; attempt <= 6; attempt++) statuses.push((await login(c, email, 'wrong-password')).status)

  expect(statuses.slice(0, 4)).toEqual([401, 401, 401, 401])
  expect(statuses.slice(4)).toContain(429)
})

test('a successful sign-in clears the account’s failures', async () => {
  const member = await createMember(t.db)
  const c = client(t, { remoteAddress: uniqueAddress() })
  for (let attempt = 1; attempt <= 4; attempt++) await login(c, member.user.email, 'wrong-password')
  await signIn(c, member.user)

  const statuses: number[] = []
  for (let attempt = 1; attempt <= 4; attempt++) statuses.push((await login(c, member.user.email, 'wrong-password')).status)

  expect(statuses).toEqual([401, 401, 401, 401])
})

test('thirty failures from one address across many accounts lock that address, not another one', { timeout: 120_000 }, async () => {
  const address = uniqueAddress()
  const c = client(t, { remoteAddress: address })
  const member = await createMember(t.db)

  const statuses: number[] = []
  for (let attempt = 1; attempt <= 30; attempt++) statuses.push((await login(c, uniqueEmail(`spray${attempt}`), 'wrong-password')).status)

  expect(statuses.slice(0, 29).every((s) => s === 401)).toBe(true)
  expect(statuses[29]).toBe(429)
  await expectThrottled(await login(c, uniqueEmail('spray'), 'wrong-password'))
  await expectThrottled(await login(c, member.user.email, member.user.password))
  const elsewhere = client(t, { remoteAddress: uniqueAddress() })
  await expectProblem(await login(elsewhere, uniqueEmail('spray'), 'wrong-password'), 401, 'KR_INVALID_CREDENTIALS')
  expect((await login(elsewhere, member.user.email, member.user.password)).status).toBe(200)
  const lockouts = (await auditOf(t.db, { action: 'auth.lockout' })).filter((e) => e.ip === address)
  expect(lockouts).toEqual([expect.objectContaining({ data: expect.objectContaining({ lockedBy: 'address' }) })])

  t.now.advance(15 * MINUTE + 1_000)
  expect((await login(c, member.user.email, member.user.password)).status).toBe(200)
})

test('guessing the MFA code is throttled too: after five wrong codes even the right one is refused for 15 minutes', async () => {
  const member = await createMember(t.db)
  const secret = await enrollMfa(t.db, member.user.id)
  const c = client(t, { remoteAddress: uniqueAddress() })
  await signIn(c, member.user)

  const statuses: number[] = []
  let lockedResponse: Response | undefined
  for (let attempt = 1; attempt <= 6 && !lockedResponse; attempt++) {
    const response = await c.post('/auth/mfa/verify', { code: await wrongTotp(secret, t.now()) })
    statuses.push(response.status)
    if (response.status === 429) lockedResponse = response
  }

  expect(statuses.slice(0, 4)).toEqual([400, 400, 400, 400])
  expect(lockedResponse, `statuses: ${statuses.join(',')}`).toBeDefined()
  if (lockedResponse) await expectThrottled(lockedResponse)
  await expectThrottled(await c.post('/auth/mfa/verify', { code: await totpAt(secret, t.now()) }))
  // A fresh password sign-in does not reset the second factor's lock.
  const again = client(t, { remoteAddress: uniqueAddress() })
  await signIn(again, member.user)
  await expectThrottled(await again.post('/auth/mfa/verify', { code: await totpAt(secret, t.now()) }))
  expect(await auditOf(t.db, { action: 'auth.lockout', actorUserId: member.user.id })).toEqual([
    expect.objectContaining({ tenantId: member.tenant.id }),
  ])
  expect(await auditOf(t.db, { action: 'auth.mfa.failed', actorUserId: member.user.id })).toHaveLength(statuses.length - 1)

  t.now.advance(15 * MINUTE + 1_000)
  const later = client(t, { remoteAddress: uniqueAddress() })
  await signIn(later, member.user)
  const verified = await later.post('/auth/mfa/verify', { code: await totpAt(secret, t.now()) })
  expect(verified.status, await show(verified)).toBe(200)
})

test('wrong passwords from one client do not lock the owner out: the right password from another client still signs in', async () => {
  const member = await createMember(t.db)
  const attacker = client(t, { remoteAddress: uniqueAddress() })
  for (let attempt = 1; attempt <= 5; attempt++) await login(attacker, member.user.email, `wrong-${attempt}`)
  await expectThrottled(await login(attacker, member.user.email, member.user.password))

  const owner = await login(client(t, { remoteAddress: uniqueAddress() }), member.user.email, member.user.password)

  expect(owner.status, await show(owner)).toBe(200)
})

// Some hundred password checks (each a deliberately slow hash): over the suite's 30 s on a busy machine.
test('failures from many clients slow the whole account down with a growing delay, and lock it after fifty in an hour', { timeout: 120_000 }, async () => {
  const member = await createMember(t.db)
  const fromAnywhere = () => client(t, { remoteAddress: uniqueAddress() })
  const { freeFailures, maxDelaySeconds } = ACCOUNT_BACKOFF

  for (let attempt = 1; attempt <= freeFailures; attempt++) {
    await expectProblem(await login(fromAnywhere(), member.user.email, 'wrong-password'), 401, 'KR_INVALID_CREDENTIALS')
  }
  await expectProblem(await login(fromAnywhere(), member.user.email, 'wrong-password'), 401, 'KR_INVALID_CREDENTIALS')
  // One failure past the free ones: everyone waits a second, even with the right password.
  const delayed = await login(fromAnywhere(), member.user.email, member.user.password)
  await expectThrottled(delayed)
  expect((await delayed.json()).retryAfterSeconds).toBe(1)
  t.now.advance(1_000)
  await expectProblem(await login(fromAnywhere(), member.user.email, 'wrong-password'), 401, 'KR_INVALID_CREDENTIALS')
  // The next delay is twice as long.
  expect(((await (await login(fromAnywhere(), member.user.email, member.user.password)).json()) as { retryAfterSeconds: number }).retryAfterSeconds).toBe(2)

  const waits: number[] = []
  let locked: Response | undefined
  for (let failure = freeFailures + 3; failure <= 50 && !locked; failure++) {
    t.now.advance(maxDelaySeconds * 1000)
    const response = await login(fromAnywhere(), member.user.email, 'wrong-password')
    if (response.status === 429) locked = response
    else {
      await expectProblem(response, 401, 'KR_INVALID_CREDENTIALS')
      waits.push(((await (await login(fromAnywhere(), member.user.email, member.user.password)).json()) as { retryAfterSeconds: number }).retryAfterSeconds)
    }
  }

  expect(waits.slice(0, 3)).toEqual([4, 8, 16])
  expect(Math.max(...waits)).toBe(maxDelaySeconds)
  // The fiftieth failure locks the account for an hour.
  expect(waits).toHaveLength(50 - freeFailures - 3)
  expect(locked).toBeDefined()
  if (locked) expect((await expectProblem(locked, 429, 'KR_THROTTLED')).retryAfterSeconds).toBe(60 * 60)
  expect(await auditOf(t.db, { action: 'auth.lockout', actorUserId: member.user.id })).toEqual([
    expect.objectContaining({ data: expect.objectContaining({ lockedBy: 'account' }) }),
  ])
})

import { afterAll, beforeAll, expect, test } from 'vitest'
import { settleAfterResponse } from '#server/api/auth/after-response'
import { client, createMember, uniqueAddress, uniqueEmail, uniqueSuffix } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'

/**
 * Issue 36 §2: POST /auth/register-self must not tell an address with an account, one with a
 * registration waiting for its verification, and an unknown one apart — not by the first answer,
 * and not by the per-address limit's answers to the requests that follow.
 */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend()
})

afterAll(async () => {
  await settleAfterResponse(t.db)
  await t.close()
})

const HOUR = 60 * 60_000
const REQUESTS = 8

function registration(email: string) {
  return { displayName: 'Enid Enum', email, password: 'a perfectly fine password', organisationName: `Enumeration ${uniqueSuffix()}` }
}

/** What a prober compares: the status and the body, with the address itself and the per-request ids left out. */
async function observed(response: Response, email: string): Promise<string> {
  const body = (await response.json()) as Record<string, unknown>
  delete body.correlationId
  delete body.instance
  return `${response.status} ${JSON.stringify(body).replaceAll(email, '<address>')}`
}

/** 1…8 requests for one address, each from its own client (as a prober spreading over addresses would), settled like a patient prober. */
async function sequence(email: string): Promise<string[]> {
  const answers: string[] = []
  for (let n = 1; n <= REQUESTS; n++) {
    const response = await client(t, { remoteAddress: uniqueAddress() }).post('/auth/register-self', registration(email))
    answers.push(await observed(response, email))
    await settleAfterResponse(t.db)
  }
  return answers
}

test('an existing account, a pending registration and an unknown address get the same answers, request after request', { timeout: 240_000 }, async () => {
  const existing = (await createMember(t.db)).user.email
  const pending = uniqueEmail('pending')
  const unknown = uniqueEmail('unknown')
  // The pending registration was made a while ago, as a prober would find it.
  expect((await client(t, { remoteAddress: uniqueAddress() }).post('/auth/register-self', registration(pending))).status).toBe(202)
  await settleAfterResponse(t.db)
  t.now.advance(2 * HOUR)

  const answers = { existing: await sequence(existing), pending: await sequence(pending), unknown: await sequence(unknown) }

  expect(answers.existing[0]).toMatch(/^202 /)
  expect(answers.pending).toEqual(answers.existing)
  expect(answers.unknown).toEqual(answers.existing)
})

test('right after a registration, its address and an existing one still answer alike', { timeout: 240_000 }, async () => {
  const existing = (await createMember(t.db)).user.email
  const fresh = uniqueEmail('fresh')

  const answers = { existing: await sequence(existing), fresh: await sequence(fresh) }

  expect(answers.fresh).toEqual(answers.existing)
})

/**
 * What the outside probe saw (an existing address answering 202 again and again, a new one 429 at
 * its second request) is reproduced from one client whose mail budget (LIMITS.mailClient, 20 an
 * hour, every address and kind together) is nearly spent by the probe's earlier calls: the 429
 * falls on the client's 21st mail call, whichever address it names. Swapping the order swaps the
 * answers, so they say nothing about the addresses.
 */
test('from one client, the 429 follows the client’s spent budget, not the address: swapping the order swaps the answers', { timeout: 240_000 }, async () => {
  async function probe(order: Array<'existing' | 'unknown'>): Promise<Record<string, number[]>> {
    const addresses = { existing: (await createMember(t.db)).user.email, unknown: uniqueEmail('unknown') }
    const prober = client(t, { remoteAddress: uniqueAddress() })
    // The probe's earlier mail-sending calls: 17 resets for addresses of its own.
    for (let n = 0; n < 17; n++) expect((await prober.post('/auth/password/reset/request', { email: uniqueEmail('spent') })).status).toBe(202)
    const statuses: Record<string, number[]> = { existing: [], unknown: [] }
    for (const kind of order) {
      for (let n = 0; n < 2; n++) statuses[kind]?.push((await prober.post('/auth/register-self', registration(addresses[kind]))).status)
      await settleAfterResponse(t.db)
    }
    return statuses
  }
  // The probe's order: the existing address first.
  expect(await probe(['existing', 'unknown'])).toEqual({ existing: [202, 202], unknown: [202, 429] })
  // The other order: now the existing address is the one refused.
  expect(await probe(['unknown', 'existing'])).toEqual({ unknown: [202, 202], existing: [202, 429] })
})

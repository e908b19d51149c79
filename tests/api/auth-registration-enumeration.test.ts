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

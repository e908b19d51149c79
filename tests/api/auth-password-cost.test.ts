import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { loadConfig } from '#server/config'
import { users } from '#server/db/schema'
import { PASSWORD_HASH_COST, setPasswordHashCost } from '#server/domain/auth/passwords'
import { client, createMember, signIn } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'

/**
 * PASSWORD_HASH_COST (server/domain/auth/passwords.ts): the suites hash at the lowest cost; a
 * portal whose cost was raised makes a person's hash again at the new cost when they sign in.
 */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ env: { PASSWORD_HASH_COST: String(PASSWORD_HASH_COST.min + 1) } })
})

afterAll(async () => {
  await t.close()
  // The worker's next files hash at the suite's cost again (the cost is the process's).
  setPasswordHashCost(PASSWORD_HASH_COST.min)
})

async function storedHash(userId: string): Promise<string> {
  const [row] = await t.db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, userId))
  return row?.passwordHash ?? ''
}

test('a sign-in whose hash was made at a lower cost stores it again at the configured cost, and the password still works', async () => {
  const member = await createMember(t.db)
  const before = await storedHash(member.user.id)
  expect(before).toMatch(new RegExp(`^scrypt\\$${2 ** PASSWORD_HASH_COST.min}\\$8\\$1\\$`))

  await signIn(client(t), member.user)

  const after = await storedHash(member.user.id)
  expect(after).toMatch(new RegExp(`^scrypt\\$${2 ** (PASSWORD_HASH_COST.min + 1)}\\$8\\$1\\$`))
  expect(after).not.toBe(before)
  // A second sign-in verifies the new hash and leaves it alone.
  await signIn(client(t), member.user)
  expect(await storedHash(member.user.id)).toBe(after)
})

test('a wrong password leaves a lower-cost hash as it was', async () => {
  const member = await createMember(t.db)
  const before = await storedHash(member.user.id)
  const response = await client(t).post('/auth/login', { email: member.user.email, password: 'not the password' })
  expect(response.status).toBe(401)
  expect(await storedHash(member.user.id)).toBe(before)
})

test('PASSWORD_HASH_COST outside 10–16 stops start-up with the variable named', () => {
  const base = { SESSION_SECRET: 'x'.repeat(32), DATA_DIR: '/tmp/unused' }
  expect(loadConfig(base).passwordHashCost).toBe(PASSWORD_HASH_COST.default)
  for (const bad of ['9', '17', '12.5']) {
    expect(() => loadConfig({ ...base, PASSWORD_HASH_COST: bad })).toThrow(/PASSWORD_HASH_COST: must be a whole number from 10 to 16/)
  }
})

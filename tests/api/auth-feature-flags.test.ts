import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { loadConfig } from '#server/config'
import { tenants } from '#server/db/schema'
import type { SessionView } from '#server/domain/auth/sessions'
import { createMember, signedInClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ env: { FEATURE_FLAGS: '{"mobileSync":true,"web":{"beta":"on"}}' } })
})

afterAll(async () => {
  await t?.close()
})

test("a session's featureFlags are the server's FEATURE_FLAGS, each overridden by the tenant's own", async () => {
  const plain = await createMember(t.db, { roleKey: 'read-write' })
  const session = async (member: typeof plain) => (await (await signedInClient(t, member)).get('/auth/session')).json() as Promise<SessionView>
  expect((await session(plain)).featureFlags).toEqual({ mobileSync: true, web: { beta: 'on' } })

  const own = await createMember(t.db, { roleKey: 'read-write' })
  await t.db
    .update(tenants)
    .set({ featureFlags: { mobileSync: false, documents: true } })
    .where(eq(tenants.id, own.tenant.id))
  expect((await session(own)).featureFlags).toEqual({ mobileSync: false, web: { beta: 'on' }, documents: true })
  // Another tenant's flags never leak into this one.
  expect((await session(plain)).featureFlags).toEqual({ mobileSync: true, web: { beta: 'on' } })
})

test('FEATURE_FLAGS must be a JSON object; anything else stops the start with a message', () => {
  const base = { SESSION_SECRET: 'x'.repeat(40), DATA_DIR: '/tmp/sp-flags' }
  expect(loadConfig(base).featureFlags).toEqual({})
  for (const bad of ['true', '[1]', '{mobileSync:true}', 'null']) {
    expect(() => loadConfig({ ...base, FEATURE_FLAGS: bad })).toThrow(/FEATURE_FLAGS: must be a JSON object/)
  }
})

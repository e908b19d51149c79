import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { loadConfig } from '#server/config'
import { DEMO } from '#server/db/demo-accounts'
import { exposedDemoAccounts, reportExposedDemoAccounts } from '#server/domain/admin/demo-accounts'
import type { AdminOverview } from '~/lib/schemas/admin-retention'
import { createMember, createTenant, createUser, addMembership, show, signedInClient } from '#tests/helpers/auth'
import { createTestBackend, TEST_SESSION_SECRET, type TestBackend } from '#tests/helpers/backend'

/**
 * Issue 36 §1: the demo accounts have published passwords. They are made by default only on a
 * laptop (a loopback PUBLIC_URL), never by default in the container image or compose.yaml; a server
 * reached from elsewhere that finds them logs an error at every start and warns its administrators
 * on the control panel until they are removed. The test backend is reached at http://portal.test.
 */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend()
})

afterAll(async () => {
  await t.close()
})

const seedFor = (env: Record<string, string>) => loadConfig({ SESSION_SECRET: TEST_SESSION_SECRET, LOG_LEVEL: 'silent', ...env }).seed

test('SEED defaults to on only for a loopback public address; an explicit value wins', () => {
  expect(seedFor({})).toBe(true)
  expect(seedFor({ PUBLIC_URL: 'http://localhost:5173' })).toBe(true)
  expect(seedFor({ PUBLIC_URL: 'http://127.0.0.1:3000' })).toBe(true)
  expect(seedFor({ PUBLIC_URL: 'http://[::1]:3000' })).toBe(true)
  expect(seedFor({ PUBLIC_URL: 'https://portal.example.com' })).toBe(false)
  expect(seedFor({ PUBLIC_URL: 'http://192.168.1.20:3000' })).toBe(false)
  expect(seedFor({ PUBLIC_URL: 'http://localhost.example.com' })).toBe(false)
  expect(seedFor({ PUBLIC_URL: 'https://portal.example.com', SEED: 'true' })).toBe(true)
  expect(seedFor({ PUBLIC_URL: 'http://localhost:3000', SEED: 'false' })).toBe(false)
})

test('neither the container image nor compose.yaml asks for the demo data by default', () => {
  const dockerfile = readFileSync('Dockerfile', 'utf8')
  const compose = readFileSync('compose.yaml', 'utf8')
  expect(dockerfile).toMatch(/^ENV .*\bSEED=false\b/m)
  expect(compose).toMatch(/^\s+SEED: \$\{SEED:-false\}$/m)
  expect(compose).not.toMatch(/SEED:-true/)
})

test('demo accounts found at a public address: an error at start and a warning on the control panel until they are removed', async () => {
  const tenant = await createTenant(t.db)
  const demoAdmin = await createUser(t.db, { email: DEMO.admin.email })
  await addMembership(t.db, tenant.id, demoAdmin.id, { roleKey: 'admin' })
  const admin = await createMember(t.db, { tenant, roleKey: 'admin' })
  const c = await signedInClient(t, admin)

  const logged: Array<{ fields: object; message: string | undefined }> = []
  const logger = { error: (fields: object, message?: string) => logged.push({ fields, message }) }
  await reportExposedDemoAccounts(t.db, t.config.publicUrl, logger)
  expect(logged).toHaveLength(1)
  expect(logged[0]?.fields).toMatchObject({ event: 'Security.DemoAccounts.Exposed', accounts: [DEMO.admin.email] })
  expect(logged[0]?.message).toContain(DEMO.admin.email)

  const before = await c.get('/api/admin/overview')
  expect(before.status, await show(before)).toBe(200)
  expect(((await before.json()) as AdminOverview).demoAccounts).toEqual([DEMO.admin.email])

  // On a laptop they are expected, and nothing is said.
  expect(await exposedDemoAccounts(t.db, 'http://localhost:3000')).toEqual([])

  const removed = await c.delete(`/api/admin/users/${demoAdmin.id}/hard`)
  expect(removed.status, await show(removed)).toBe(200)
  const after = await c.get('/api/admin/overview')
  expect(((await after.json()) as AdminOverview).demoAccounts).toEqual([])
  logged.length = 0
  await reportExposedDemoAccounts(t.db, t.config.publicUrl, logger)
  expect(logged).toEqual([])
})

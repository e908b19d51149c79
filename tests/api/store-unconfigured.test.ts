import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { ConfigError, loadConfig } from '#server/config'
import type { StoreOverview } from '~/lib/store/types'
import { expectProblem } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, organisation } from '#tests/helpers/reporting-a'
import { createStoreStandIn } from '#tests/helpers/store-stand-in'

/** docs/store-subscriptions.md "Configuration": a portal without app stores says so plainly; half a store's settings stop start-up. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend()
})

afterAll(async () => {
  await t?.close()
})

test('with no store configured, the overview says so and every link call is a clear 409 KR_STORE_NOT_CONFIGURED', async () => {
  const { admin, writer } = await organisation(t)
  expect(await body<StoreOverview>(await admin.c.get('/api/iap/subscriptions'))).toEqual({ stores: { apple: false, google: false }, liveCodeExpiresAtUtc: null, subscriptions: [] })
  const start = await expectProblem(await admin.c.post('/api/iap/link/start', {}), 409, 'KR_STORE_NOT_CONFIGURED')
  expect(start.detail).toContain('not set up on this portal')
  const complete = await expectProblem(
    await writer.c.post('/api/iap/link/complete', { store: 'google', code: 'K7QM-3TXA', productId: 'p', purchaseToken: 'a-purchase-token', packageName: 'com.example.app' }),
    409,
    'KR_STORE_NOT_CONFIGURED',
  )
  expect(complete.detail).toContain('Google Play')
  await expectProblem(await admin.c.post('/api/iap/verify', { subscriptionId: randomUUID() }), 404)
})

test('some but not all of a store’s variables stop start-up with the missing names; bad products and keys are named', () => {
  const env = { NODE_ENV: 'test', SESSION_SECRET: 'x'.repeat(40), DATA_DIR: '/tmp/unused' }
  expect(() => loadConfig({ ...env, APPLE_ISSUER_ID: 'issuer', APPLE_KEY_ID: 'key' })).toThrow(/APPLE_PRIVATE_KEY: is required[\s\S]*APPLE_BUNDLE_ID: is required/)
  expect(() => loadConfig({ ...env, GOOGLE_PACKAGE_NAME: 'com.example.app' })).toThrow(/GOOGLE_SERVICE_ACCOUNT_JSON: is required/)
  const full = createStoreStandIn().env()
  expect(() => loadConfig({ ...env, ...full, IAP_PRODUCTS: '{"p":{"plan":"gold","seats":1}}' })).toThrow(/IAP_PRODUCTS: must be a JSON object/)
  expect(() => loadConfig({ ...env, ...full, IAP_PRODUCTS: undefined as unknown as string })).toThrow(/IAP_PRODUCTS: is required with a store/)
  expect(() => loadConfig({ ...env, ...full, APPLE_PRIVATE_KEY: 'not a key' })).toThrow(ConfigError)
  const config = loadConfig({ ...env, ...full })
  expect(config.store.apple?.baseUrl).toBe('https://api.storekit-sandbox.itunes.apple.com')
  expect(config.store.google?.serviceAccount.tokenUri).toBe('https://oauth2.googleapis.com/token')
  expect(config.store.products['siteportal.team.10']).toEqual({ plan: 'team', seats: 10 })
})

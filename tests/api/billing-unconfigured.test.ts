import { afterAll, beforeAll, expect, test } from 'vitest'
import type { BillingOverview } from '~/lib/billing/types'
import { HEADERS } from '~/lib/constants'
import { expectProblem } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { createOrg, type Org } from '#tests/helpers/reporting-b'

/** docs/billing.md: with no payment provider configured (the default), billing says so and nothing else breaks. */

let t: TestBackend
let org: Org

beforeAll(async () => {
  t = await createTestBackend()
  org = await createOrg(t)
})

afterAll(async () => {
  await t?.close()
})

test('the overview says no provider; a checkout is refused with 409 KR_BILLING_NOT_CONFIGURED; webhooks and the test provider are not there', async () => {
  const overview = (await (await org.admin.get('/api/billing/overview')).json()) as BillingOverview
  expect(overview).toMatchObject({ provider: 'none', licence: { plan: 'free', seats: 10, status: 'active' } })

  const problem = await expectProblem(
    await org.admin.post('/api/billing/checkout/session', { plan: 'team', seats: 5 }, { headers: { [HEADERS.idempotencyKey]: 'unconfigured-1' } }),
    409,
    'KR_BILLING_NOT_CONFIGURED',
  )
  expect(problem.remediation).toContain('Contact whoever runs this portal')
  await expectProblem(await t.fetch('/api/billing/webhooks/stripe', { method: 'POST', body: '{}' }), 404)
  await expectProblem(await t.fetch('/api/billing/webhooks/test', { method: 'POST', body: '{}' }), 404)
  await expectProblem(await t.fetch('/api/billing/test-provider/checkout/cs_test_x'), 404)
  // The rest of the product works as before.
  expect((await org.writer.get('/api/projects')).status).toBe(200)
})

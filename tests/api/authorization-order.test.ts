import { afterAll, beforeAll, expect, test } from 'vitest'
import type { OpenApiDocument } from '#server/http/openapi'
import { createMember, createTenant, signedInClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'

/**
 * Issue 36 §3: authorization before validation. Every operation the contract marks as needing a
 * role (security `session: ['admin']`, or `['platform-operator']`) answers a plain member 403 — or
 * 404 where the thing is hidden — whatever the body, query and path say; never the call's field
 * errors (400), which would tell a member what the call expects and that it exists.
 */

let t: TestBackend
let document: OpenApiDocument

beforeAll(async () => {
  t = await createTestBackend()
  const response = await t.fetch('/api/openapi.json')
  expect(response.status).toBe(200)
  document = (await response.json()) as OpenApiDocument
})

afterAll(async () => {
  await t.close()
})

/** A path parameter no schema accepts: too long, not a uuid, not a number. */
const BROKEN_PARAM = 'x'.repeat(300)
/** A body no schema accepts as its object (wrong types everywhere). */
const BROKEN_BODY = { name: 12, email: false, roleKey: 7, items: 'nope', enabled: 'maybe', title: [], x: { y: 1 } }

test('every operation that needs the admin role answers a plain member 403 or 404 before looking at a broken body, query or path', async () => {
  const tenant = await createTenant(t.db)
  const member = await createMember(t.db, { tenant, roleKey: 'read-write' })
  const plain = await signedInClient(t, member)
  const walked: string[] = []
  const leaks: string[] = []
  for (const [template, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!op.security.some((requirement) => requirement.session?.includes('admin') || requirement.session?.includes('platform-operator'))) continue
      const path = template.replace(/\{[^}]+\}/g, encodeURIComponent(BROKEN_PARAM)) + '?limit=-5&after=%00broken&status=nonsense'
      const hasBody = op.requestBody !== undefined
      const response = await plain.request(path, { method: method.toUpperCase(), ...(hasBody && { json: BROKEN_BODY }) })
      walked.push(`${method.toUpperCase()} ${template}`)
      if (response.status !== 403 && response.status !== 404) leaks.push(`${method.toUpperCase()} ${template}: ${response.status} ${(await response.text()).slice(0, 160)}`)
    }
  }
  expect(walked.length).toBeGreaterThan(60)
  expect(leaks).toEqual([])
})

test('the same operations still validate for an administrator (the early check lets them through)', async () => {
  const tenant = await createTenant(t.db)
  const admin = await createMember(t.db, { tenant, roleKey: 'admin' })
  const c = await signedInClient(t, admin)
  const response = await c.request('/api/admin/retention', { method: 'PUT', json: BROKEN_BODY })
  expect(response.status).toBe(400)
})

test('the licence call, for platform operators only, answers an administrator of the organisation 403 before looking at a broken body', async () => {
  const tenant = await createTenant(t.db)
  const admin = await createMember(t.db, { tenant, roleKey: 'admin' })
  const c = await signedInClient(t, admin)
  const response = await c.request(`/api/tenants/${tenant.id}/license`, { method: 'PATCH', json: BROKEN_BODY })
  expect(response.status).toBe(403)
  expect(((await response.json()) as { code: string }).code).toBe('KR_OPERATOR_ONLY')
})

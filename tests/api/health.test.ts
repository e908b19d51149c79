import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { memberships, tenants, users } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend()
})

afterAll(async () => {
  await t.close()
})

test('GET /api/health answers 200 with the database reachable and the versions of the contract', async () => {
  const response = await t.fetch('/api/health')

  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  expect(await response.json()).toMatchObject({
    status: 'ok',
    database: 'reachable',
    clientVersion: '0.1.0',
    contractVersion: '0.3.0',
    timeUtc: t.now().toISOString(),
  })
})

test('an unknown /api path answers 404 problem details whose correlationId is the X-Correlation-Id header', async () => {
  const response = await t.fetch('/api/no-such-thing')

  expect(response.status).toBe(404)
  expect(response.headers.get('content-type')).toBe('application/problem+json')
  const header = response.headers.get('x-correlation-id')
  expect(header).toMatch(/^[0-9a-f-]{36}$/)
  expect(await response.json()).toMatchObject({
    status: 404,
    title: 'Not found',
    instance: '/api/no-such-thing',
    code: 'KR_NOT_FOUND',
    correlationId: header,
  })
})

test('a valid X-Correlation-Id sent by the client is echoed back', async () => {
  const correlationId = `test-${randomUUID()}`

  const ok = await t.fetch('/api/health', { headers: { 'X-Correlation-Id': correlationId } })
  const missing = await t.fetch('/api/no-such-thing', { headers: { 'X-Correlation-Id': correlationId } })

  expect(ok.headers.get('x-correlation-id')).toBe(correlationId)
  expect(missing.headers.get('x-correlation-id')).toBe(correlationId)
  expect(await missing.json()).toMatchObject({ correlationId })
})

test('an invalid X-Correlation-Id is replaced by one the server makes', async () => {
  const response = await t.fetch('/api/health', { headers: { 'X-Correlation-Id': 'bad id<script>' } })

  expect(response.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/)
})

test('row-level security hides another tenant’s rows and refuses writes into another tenant', async () => {
  const suffix = randomUUID().slice(0, 8)
  const [first, second] = await t.db
    .insert(tenants)
    .values([
      { name: 'First Tenant', slug: `first-${suffix}` },
      { name: 'Second Tenant', slug: `second-${suffix}` },
    ])
    .returning({ id: tenants.id })
  const [user] = await t.db
    .insert(users)
    .values({ email: `rls-${suffix}@example.test`, displayName: 'Riley Rls' })
    .returning({ id: users.id })
  if (!first || !second || !user) throw new Error('setup: rows not created')
  await withTenant(t.db, first.id, (tx) =>
    tx.insert(memberships).values({ tenantId: first.id, userId: user.id, roleKey: 'read-write' }),
  )

  const seenByFirst = await withTenant(t.db, first.id, (tx) => tx.select({ userId: memberships.userId }).from(memberships))
  const seenBySecond = await withTenant(t.db, second.id, (tx) => tx.select({ id: memberships.id }).from(memberships))
  const intrusion = withTenant(t.db, second.id, (tx) =>
    tx.insert(memberships).values({ tenantId: first.id, userId: user.id, roleKey: 'admin' }),
  )

  expect(seenByFirst).toEqual([{ userId: user.id }])
  expect(seenBySecond).toEqual([])
  await expect(intrusion).rejects.toSatisfy((error) => /row-level security/.test(messagesOf(error)))
  const afterIntrusion = await withTenant(t.db, first.id, (tx) => tx.select({ roleKey: memberships.roleKey }).from(memberships))
  expect(afterIntrusion).toEqual([{ roleKey: 'read-write' }])
})

/** Drivers wrap the database's error: read the whole cause chain. */
function messagesOf(error: unknown): string {
  const messages: string[] = []
  for (let e = error; e instanceof Error; e = e.cause) messages.push(e.message)
  return messages.join(' | ')
}

import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { memberships, tenants, users } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import { markDraining, markServing } from '#server/http/draining'
import { expectProblem } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { startS3, type TestS3 } from '#tests/helpers/s3'

let t: TestBackend
let s3: TestS3

beforeAll(async () => {
  t = await createTestBackend()
  s3 = await startS3()
  // The AWS SDK reads its credentials from the environment, as in production.
  vi.stubEnv('AWS_ACCESS_KEY_ID', s3.env.AWS_ACCESS_KEY_ID)
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', s3.env.AWS_SECRET_ACCESS_KEY)
})

afterAll(async () => {
  vi.unstubAllEnvs()
  await t?.close()
  await s3?.stop()
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

test('GET /api/health/live answers 200 {status: ok}, never cached', async () => {
  const response = await t.fetch('/api/health/live')

  expect(response.status).toBe(200)
  expect(response.headers.get('cache-control')).toBe('no-store')
  expect(await response.json()).toEqual({ status: 'ok' })
})

test('GET /api/health/ready answers 200 with each part up; Redis is named only when REDIS_URL is set', async () => {
  const response = await t.fetch('/api/health/ready')

  expect(response.status).toBe(200)
  expect(response.headers.get('cache-control')).toBe('no-store')
  expect(await response.json()).toEqual({ status: 'ready', checks: { database: 'up', blobStore: 'up' } })
})

test('ready with this machine’s Redis and an S3 bucket that answers: 200, every part up', async () => {
  const scaled = await createTestBackend({ env: { ...s3.env, REDIS_URL: 'redis://127.0.0.1:6379' } })
  try {
    const response = await scaled.fetch('/api/health/ready')

    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: 'ready', checks: { database: 'up', redis: 'up', blobStore: 'up' } })
  } finally {
    await scaled.close()
  }
})

test('ready answers 503 KR_NOT_READY naming what is down: a Redis that refuses, a bucket that does not exist; liveness stays 200', async () => {
  const broken = await createTestBackend({ env: { ...s3.env, S3_BUCKET: 'no-such-bucket', REDIS_URL: 'redis://127.0.0.1:1' } })
  try {
    const response = await broken.fetch('/api/health/ready')

    const problem = await expectProblem(response, 503, 'KR_NOT_READY')
    expect(problem).toMatchObject({ detail: 'Not ready: Redis and the blob store are down.', draining: false, checks: { database: 'up', redis: 'down', blobStore: 'down' } })
    expect(JSON.stringify(problem)).not.toContain('127.0.0.1')
    expect((await broken.fetch('/api/health/live')).status).toBe(200)
  } finally {
    await broken.close()
  }
})

test('a draining instance answers ready 503 at once, and live 200', async () => {
  markDraining()
  try {
    const problem = await expectProblem(await t.fetch('/api/health/ready'), 503, 'KR_NOT_READY')
    expect(problem).toMatchObject({ draining: true, detail: expect.stringContaining('shutting down') })
    expect(problem).not.toHaveProperty('checks')
    expect((await t.fetch('/api/health/live')).status).toBe(200)
  } finally {
    markServing()
  }
  expect((await t.fetch('/api/health/ready')).status).toBe(200)
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

import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { expectProblem, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, organisation } from '#tests/helpers/reporting-a'
import type { TelemetryEventList } from '~/lib/admin/telemetry'

/** Issue 15: GET /api/admin/telemetry/events through HTTP: newest first, filters, keyset paging, the one-row sample, tenancy and access. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-25T12:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

async function send(c: TestClient, name: string, properties: Record<string, unknown>, correlationId: string) {
  const events = [{ name, properties, source: 'web', timestampUtc: t.now().toISOString(), correlationId }]
  await body(await c.request('/telemetry/events', { method: 'POST', json: { source: 'web', events } }), 202)
  t.now.advance(60_000)
}

test('newest first, only this organisation’s, with the person; filters by name prefix, since and visitor; keyset paging; limit=1 is the sample', async () => {
  const { admin, writer } = await organisation(t)
  const other = await organisation(t)
  const visitor = `visitor-${randomUUID().slice(0, 8)}`
  await send(writer.c, 'web.auth.sign-in.step', { step: 'credentials', outcome: 'shown' }, visitor)
  const since = t.now().toISOString()
  await send(writer.c, 'web.sync.state', { status: 'failed', failures: 1 }, visitor)
  await send(admin.c, 'web.realtime.state', { status: 'connected' }, 'visitor-admin-0001')
  await send(other.writer.c, 'web.sync.state', { status: 'failed' }, 'visitor-other-0001')

  const list = await body<TelemetryEventList>(await admin.c.get('/api/admin/telemetry/events'))
  expect(list.items.map((e) => e.name)).toEqual(['web.realtime.state', 'web.sync.state', 'web.auth.sign-in.step'])
  expect(list.nextCursor).toBeNull()
  expect(list.items[1]).toMatchObject({
    properties: { status: 'failed', failures: 1 },
    source: 'web',
    visitorId: visitor,
    correlationId: visitor,
    user: { id: writer.user.id, email: writer.user.email },
    occurredAtUtc: expect.any(String),
    receivedAtUtc: expect.any(String),
  })

  const names = async (query: string) => (await body<TelemetryEventList>(await admin.c.get(`/api/admin/telemetry/events?${query}`))).items.map((e) => e.name)
  expect(await names('name=web.auth.')).toEqual(['web.auth.sign-in.step'])
  expect(await names('name=web.%25')).toEqual([])
  expect(await names(`visitor=${visitor}`)).toEqual(['web.sync.state', 'web.auth.sign-in.step'])
  expect(await names(`since=${encodeURIComponent(since)}`)).toEqual(['web.realtime.state', 'web.sync.state'])
  expect(await names('since=2099-01-01&name=')).toEqual([])

  const sample = await body<TelemetryEventList>(await admin.c.get('/api/admin/telemetry/events?limit=1'))
  expect(sample.items.map((e) => e.name)).toEqual(['web.realtime.state'])
  expect(sample.nextCursor).toEqual(expect.any(String))
  const next = await body<TelemetryEventList>(await admin.c.get(`/api/admin/telemetry/events?limit=1&after=${sample.nextCursor}`))
  expect(next.items.map((e) => e.name)).toEqual(['web.sync.state'])

  expect((await body<TelemetryEventList>(await other.admin.c.get('/api/admin/telemetry/events'))).items.map((e) => e.correlationId)).toEqual(['visitor-other-0001'])
})

test('a member who is not an administrator is 403; bad filters and cursors are 400', async () => {
  const { admin, writer } = await organisation(t)
  await expectProblem(await writer.c.get('/api/admin/telemetry/events'), 403)
  const bad = await expectProblem(await admin.c.get(`/api/admin/telemetry/events?limit=0&since=soon&name=${'n'.repeat(201)}`), 400)
  expect(Object.keys(bad.errors ?? {}).sort()).toEqual(['limit', 'name', 'since'])
  await expectProblem(await admin.c.get('/api/admin/telemetry/events?after=nonsense'), 400)
  await expectProblem(await admin.c.get('/api/admin/telemetry/events?limit=201'), 400)
})

import { Hono } from 'hono'
import { z } from 'zod'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { schemaIncidents } from '#server/db/schema-observability'
import { SCHEMA_INCIDENT_CAP_PER_HOUR, settleSchemaIncidents } from '#server/domain/observability/schema-incidents'
import { operation } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { createLogger } from '#server/http/logger'
import type { SchemaIncidentGroupPage, SchemaIncidentOccurrencePage } from '~/lib/admin/schema-incidents'
import { expectProblem } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, organisation } from '#tests/helpers/reporting-a'

/** Schema incidents: the contract's check of responses (server/http/contract.ts) and GET /api/admin/schema-incidents*. */

let t: TestBackend

beforeAll(async () => {
  // This file breaks responses on purpose (the probe below).
  t = await createTestBackend({ now: '2026-12-01T10:00:00.000Z', allowSchemaIncidents: true })
})

afterAll(async () => {
  await t?.close()
})

/** A call whose answer breaks its declared schema, on the backend's own deps, as a tenant's session would call it. */
function probe(tenantId: string | null) {
  const app = new Hono<BackendEnv>()
  app.use(async (c, next) => {
    const logger = createLogger('silent')
    c.set('deps', { config: t.config, db: t.db, logger, now: t.now })
    c.set('correlationId', 'probe-correlation-1')
    c.set('log', logger)
    c.set('session', tenantId ? ({ tenantId, userId: 'u', id: 's' } as BackendEnv['Variables']['session']) : undefined)
    await next()
  })
  app.get(
    '/api/probe/:itemId',
    operation({
      summary: 'probe',
      tag: 'Test',
      access: 'public',
      responses: { 200: { description: 'x', schema: z.object({ items: z.array(z.object({ dueDate: z.iso.date(), password: z.string() })), total: z.number() }) } },
    }),
    (c) => c.json({ items: [{ dueDate: '2026-13-45', password: 12345 }], total: 'many' }),
  )
  return app
}

test('a response that breaks its schema answers unchanged, and each field becomes an incident with the path template', async () => {
  const { tenant } = await organisation(t)
  const response = await probe(tenant.id).request('/api/probe/abc')
  expect(response.status).toBe(200)
  expect(await response.json()).toEqual({ items: [{ dueDate: '2026-13-45', password: 12345 }], total: 'many' })
  await settleSchemaIncidents()
  const rows = (await t.db.select().from(schemaIncidents)).filter((r) => r.tenantId === tenant.id)
  expect(rows.map((r) => r.field).sort()).toEqual(['items.0.dueDate', 'items.0.password', 'total'])
  const due = rows.find((r) => r.field === 'items.0.dueDate')!
  expect(due).toMatchObject({ source: 'server', method: 'GET', path: '/api/probe/{itemId}', status: 200, correlationId: 'probe-correlation-1', got: 'string "2026-13-45"' })
  // A field whose name looks secret: its type, never its value.
  expect(rows.find((r) => r.field === 'items.0.password')!.got).toBe('number')
  expect(rows.find((r) => r.field === 'total')).toMatchObject({ expected: 'number', got: 'string "many"' })
  expect(t.schemaIncidents().some((i) => i.path === '/api/probe/{itemId}')).toBe(true)
})

test('a call without an organisation is recorded without one, and without values', async () => {
  await probe(null).request('/api/probe/x')
  await settleSchemaIncidents()
  const rows = (await t.db.select().from(schemaIncidents)).filter((r) => r.tenantId === null && r.field === 'total')
  expect(rows.at(-1)?.got).toBe('string of 4 characters')
})

test(`a hot bug stops at ${SCHEMA_INCIDENT_CAP_PER_HOUR} rows per call and field an hour`, async () => {
  const { tenant } = await organisation(t)
  const app = probe(tenant.id)
  for (let i = 0; i < SCHEMA_INCIDENT_CAP_PER_HOUR + 5; i++) {
    await app.request('/api/probe/y')
    await settleSchemaIncidents()
  }
  const rows = (await t.db.select().from(schemaIncidents)).filter((r) => r.tenantId === tenant.id && r.field === 'total')
  expect(rows).toHaveLength(SCHEMA_INCIDENT_CAP_PER_HOUR)
})

async function incident(tenantId: string | null, values: Partial<typeof schemaIncidents.$inferInsert> = {}) {
  await t.db.insert(schemaIncidents).values({
    tenantId,
    source: 'server',
    method: 'GET',
    path: '/api/items/{itemId}',
    status: 200,
    field: 'dueDate',
    expected: 'string',
    got: 'null',
    correlationId: 'corr-0001',
    release: '0.1.0',
    occurredAt: t.now(),
    ...values,
  })
}

test('the list groups by call and field with counts, first and last seen and the last values; filters and paging', async () => {
  const { tenant, admin } = await organisation(t)
  await incident(tenant.id, { occurredAt: new Date('2026-11-20T08:00:00Z'), got: 'null', correlationId: 'corr-old' })
  await incident(tenant.id, { occurredAt: new Date('2026-11-30T08:00:00Z'), got: 'number 3', correlationId: 'corr-new', status: 201 })
  await incident(tenant.id, { path: '/api/projects', field: '', expected: 'object', got: 'array of 2', occurredAt: new Date('2026-11-25T08:00:00Z') })
  await incident(tenant.id, { source: 'web', path: '/api/views', field: 'items', occurredAt: new Date('2026-11-10T08:00:00Z') })

  const page = await body<SchemaIncidentGroupPage>(await admin.c.get('/api/admin/schema-incidents'))
  expect(page.scope).toBe('organisation')
  expect(page.items.map((g) => `${g.source} ${g.path} ${g.field}`)).toEqual(['server /api/items/{itemId} dueDate', 'server /api/projects ', 'web /api/views items'])
  expect(page.items[0]).toMatchObject({ count: 2, firstSeenUtc: '2026-11-20T08:00:00.000Z', lastSeenUtc: '2026-11-30T08:00:00.000Z', lastGot: 'number 3', lastCorrelationId: 'corr-new', lastStatus: 201 })

  const byPath = await body<SchemaIncidentGroupPage>(await admin.c.get('/api/admin/schema-incidents?path=PROJECTS'))
  expect(byPath.items.map((g) => g.path)).toEqual(['/api/projects'])
  const since = await body<SchemaIncidentGroupPage>(await admin.c.get('/api/admin/schema-incidents?since=2026-11-24'))
  expect(since.items.map((g) => g.path)).toEqual(['/api/items/{itemId}', '/api/projects'])
  expect(since.items[0]!.count).toBe(1)
  const web = await body<SchemaIncidentGroupPage>(await admin.c.get('/api/admin/schema-incidents?source=web&path=&since='))
  expect(web.items.map((g) => g.path)).toEqual(['/api/views'])

  const first = await body<SchemaIncidentGroupPage>(await admin.c.get('/api/admin/schema-incidents?limit=2'))
  expect(first.nextPage).toBe(2)
  const second = await body<SchemaIncidentGroupPage>(await admin.c.get('/api/admin/schema-incidents?limit=2&page=2'))
  expect(second.items.map((g) => g.path)).toEqual(['/api/views'])
  expect(second.nextPage).toBeNull()

  const occurrences = await body<SchemaIncidentOccurrencePage>(await admin.c.get(`/api/admin/schema-incidents/groups/${page.items[0]!.group}`))
  expect(occurrences.group.count).toBe(2)
  expect(occurrences.items.map((o) => o.correlationId)).toEqual(['corr-new', 'corr-old'])
  expect(occurrences.items[0]).toMatchObject({ status: 201, expected: 'string', got: 'number 3', release: '0.1.0' })
})

test('another organisation’s incidents are never seen; its group is 404; the instance’s are apart', async () => {
  const mine = await organisation(t)
  const other = await organisation(t)
  await incident(other.tenant.id, { path: '/api/secret-of-other' })
  await incident(null, { path: '/auth/session', field: 'tenantId', got: 'missing' })
  const page = await body<SchemaIncidentGroupPage>(await mine.admin.c.get('/api/admin/schema-incidents'))
  expect(page.items).toEqual([])
  const theirs = await body<SchemaIncidentGroupPage>(await other.admin.c.get('/api/admin/schema-incidents'))
  const group = theirs.items.find((g) => g.path === '/api/secret-of-other')!.group
  await expectProblem(await mine.admin.c.get(`/api/admin/schema-incidents/groups/${group}`), 404)
  await expectProblem(await mine.admin.c.get('/api/admin/schema-incidents/groups/not-a-group'), 404)
  await expectProblem(await mine.admin.c.get(`/api/admin/schema-incidents/groups/${Buffer.from(JSON.stringify(['web', 'GET\u0000', '/x', 'y'])).toString('base64url')}`), 404)

  const instance = await body<SchemaIncidentGroupPage>(await mine.admin.c.get('/api/admin/schema-incidents?scope=instance'))
  expect(instance.scope).toBe('instance')
  expect(instance.items.some((g) => g.path === '/auth/session')).toBe(true)
  expect(instance.items.some((g) => g.path === '/api/secret-of-other')).toBe(false)
  const instanceGroup = instance.items.find((g) => g.path === '/auth/session')!.group
  expect((await body<SchemaIncidentOccurrencePage>(await mine.admin.c.get(`/api/admin/schema-incidents/groups/${instanceGroup}?scope=instance`))).items.length).toBeGreaterThan(0)
  await expectProblem(await mine.admin.c.get(`/api/admin/schema-incidents/groups/${instanceGroup}`), 404)
})

test('a member who is not an administrator gets 403, signed out 401', async () => {
  const { writer, reader } = await organisation(t)
  await expectProblem(await writer.c.get('/api/admin/schema-incidents'), 403)
  await expectProblem(await reader.c.get('/api/admin/schema-incidents?scope=instance'), 403)
  await expectProblem(await reader.c.get('/api/admin/schema-incidents/groups/abc'), 403)
  await expectProblem(await t.fetch('/api/admin/schema-incidents'), 401)
})

test('bad parameters are 400 with field errors', async () => {
  const { admin } = await organisation(t)
  for (const [query, field] of [
    ['since=yesterday', 'since'],
    ['since=2026-02-30', 'since'],
    ['source=mobile', 'source'],
    ['scope=everyone', 'scope'],
    ['page=0', 'page'],
    ['limit=1000', 'limit'],
    [`path=${'x'.repeat(300)}`, 'path'],
  ] as const) {
    const problem = await expectProblem(await admin.c.get(`/api/admin/schema-incidents?${query}`), 400)
    expect(Object.keys(problem.errors ?? {}), query).toContain(field)
  }
  await expectProblem(await admin.c.get('/api/admin/schema-incidents/groups/x?page=abc'), 400)
})

const webReport = (overrides: Record<string, unknown> = {}) => ({
  incidents: [{ method: 'GET', path: '/api/projects/{id}', status: 200, field: 'title', expected: 'string or null', got: 'number', correlationId: 'corr-web-1', ...overrides }],
})

test('the browser’s API client reports a mismatch: stored with source web for the sender’s organisation, and listed', async () => {
  const { tenant, admin, writer } = await organisation(t)
  const answer = await body<{ accepted: number }>(await writer.c.post('/telemetry/schema-incidents', webReport()), 202)
  expect(answer).toEqual({ accepted: 1 })
  const rows = (await t.db.select().from(schemaIncidents)).filter((r) => r.tenantId === tenant.id)
  expect(rows).toHaveLength(1)
  expect(rows[0]).toMatchObject({ source: 'web', method: 'GET', path: '/api/projects/{id}', status: 200, field: 'title', expected: 'string or null', got: 'number', correlationId: 'corr-web-1' })
  const web = await body<SchemaIncidentGroupPage>(await admin.c.get('/api/admin/schema-incidents?source=web'))
  expect(web.items.map((g) => `${g.source} ${g.method} ${g.path} ${g.field}`)).toEqual(['web GET /api/projects/{id} title'])
  // Another organisation never sees it.
  const other = await organisation(t)
  expect((await body<SchemaIncidentGroupPage>(await other.admin.c.get('/api/admin/schema-incidents?source=web'))).items).toEqual([])
})

test(`a browser’s reports stop at ${SCHEMA_INCIDENT_CAP_PER_HOUR} rows per call and field an hour, like the server’s`, async () => {
  const { tenant, writer } = await organisation(t)
  let accepted = 0
  for (let i = 0; i < SCHEMA_INCIDENT_CAP_PER_HOUR + 3; i++) accepted += (await body<{ accepted: number }>(await writer.c.post('/telemetry/schema-incidents', webReport({ field: 'code' })), 202)).accepted
  expect(accepted).toBe(SCHEMA_INCIDENT_CAP_PER_HOUR)
  const rows = (await t.db.select().from(schemaIncidents)).filter((r) => r.tenantId === tenant.id && r.field === 'code')
  expect(rows).toHaveLength(SCHEMA_INCIDENT_CAP_PER_HOUR)
})

test('a report needs a session, and a report that is not one is 400', async () => {
  const { writer } = await organisation(t)
  const anonymous = await t.fetch('/telemetry/schema-incidents', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(webReport()) })
  // Without a session the CSRF check or the session check refuses it, never a row.
  expect([401, 403]).toContain(anonymous.status)
  for (const bad of [{ incidents: [] }, webReport({ path: 'https://elsewhere.example/x' }), webReport({ status: 500 }), webReport({ method: 'TRACE' }), webReport({ got: 'x'.repeat(300) })]) {
    await expectProblem(await writer.c.post('/telemetry/schema-incidents', bad), 400)
  }
})

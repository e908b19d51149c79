import { randomUUID } from 'node:crypto'
import { and, eq, isNull } from 'drizzle-orm'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { frontendErrors, telemetryEvents, telemetryIngestCounts } from '#server/db/schema-observability'
import { withTenant, withUser } from '#server/db/tenancy'
import { errorFingerprint } from '#server/domain/observability/fingerprint'
import { INGEST_LIMITS } from '#server/domain/observability/limits'
import { purgeTelemetry } from '#server/domain/observability/retention'
import type { IngestStats } from '#server/domain/observability/stats'
import type { OpenApiDocument } from '#server/http/openapi'
import { client, CSRF_COOKIE, expectProblem, show, uniqueAddress, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, TEST_ORIGIN, type TestBackend } from '#tests/helpers/backend'
import { body, organisation } from '#tests/helpers/reporting-a'
import { STACK_TRACE_MAX, VISITOR_COOKIE } from '~/lib/constants'

/** Spec §7 "Telemetry": the browser's telemetry and frontend errors, stored, counted, limited and purged. Through HTTP. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-25T12:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

const DAY_MS = 24 * 60 * 60_000
const TODAY = '2026-11-25'

type Answer = { accepted: number; dropped: number }

function visitor(): string {
  return randomUUID()
}

function event(name = 'web.Projects.Opened', extra: Record<string, unknown> = {}) {
  return { name, properties: { screen: 'projects', count: 3 }, source: 'web', timestampUtc: '2026-11-25T11:59:00.000Z', correlationId: visitor(), ...extra }
}

function frontendError(extra: Record<string, unknown> = {}) {
  return {
    name: 'TypeError',
    timestampUtc: '2026-11-25T11:59:30.000Z',
    message: 'x is not a function',
    stack: 'TypeError: x is not a function\n    at run (https://portal.test/assets/app-1.js?v=3:10:5)\n    at main (https://portal.test/assets/app-1.js:20:1)',
    path: '/projects',
    userAgent: 'Mozilla/5.0 Test',
    release: '0.1.0',
    correlationId: visitor(),
    ...extra,
  }
}

/** A browser-like send: JSON (or a beacon's text/plain) from its own address unless told otherwise. */
function send(c: TestClient, path: string, payload: unknown, options: { contentType?: string; csrf?: false; raw?: string; origin?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json' }
  if (options.origin) headers.origin = options.origin
  return c.request(path, { method: 'POST', headers, body: options.raw ?? JSON.stringify(payload), ...(options.csrf === false && { csrf: false }) })
}

/** A signed-out caller from an address of its own, so no limit of another test applies. */
function anonymous(): TestClient {
  return client(t, { remoteAddress: uniqueAddress() })
}

async function statsOf(c: TestClient): Promise<IngestStats> {
  return body<IngestStats>(await c.get('/api/admin/telemetry/stats'))
}

function today(days: IngestStats['organisation']) {
  const day = days.at(-1)
  expect(day?.day).toBe(TODAY)
  if (!day) throw new Error('no day')
  return day
}

describe('ingest', () => {
  test('signed in, /telemetry/events stores the batch with the organisation, the user and the kr-vis visitor, and answers 202 {accepted, dropped}', async () => {
    const { writer, tenant } = await organisation(t)
    const vis = visitor()
    writer.c.jar.set(VISITOR_COOKIE, vis)
    const sent = [event('web.Auth.SignedIn'), event('web.Projects.Opened', { properties: { nested: { a: 1 }, list: [1, 'two', null] } })]
    const answer = await body<Answer>(await send(writer.c, '/telemetry/events', { source: 'web', events: sent }), 202)
    expect(answer).toEqual({ accepted: 2, dropped: 0 })

    const rows = await t.db.select().from(telemetryEvents).where(eq(telemetryEvents.tenantId, tenant.id))
    expect(rows).toHaveLength(2)
    for (const row of rows) {
      expect(row.userId).toBe(writer.user.id)
      expect(row.visitorId).toBe(vis)
      expect(row.source).toBe('web')
      expect(row.occurredAt.toISOString()).toBe('2026-11-25T11:59:00.000Z')
      expect(row.receivedAt.toISOString()).toBe(t.now().toISOString())
    }
    expect(rows.map((r) => r.name).sort()).toEqual(['web.Auth.SignedIn', 'web.Projects.Opened'])
    expect(rows.find((r) => r.name === 'web.Projects.Opened')?.properties).toEqual({ nested: { a: 1 }, list: [1, 'two', null] })
    expect(rows.map((r) => r.correlationId).sort()).toEqual(sent.map((e) => e.correlationId).sort())
  })

  test('/telemetry/events without a session is 401 (the browser falls back), and stores nothing', async () => {
    const c = anonymous()
    const name = `web.Test.${randomUUID()}`
    await expectProblem(await send(c, '/telemetry/events', { source: 'web', events: [event(name)] }), 401, 'KR_UNAUTHENTICATED')
    expect(await t.db.select().from(telemetryEvents).where(eq(telemetryEvents.name, name))).toEqual([])
  })

  test('/telemetry/public-events stores without organisation or user, visitor from the correlation id', async () => {
    const c = anonymous()
    const e = event(`web.Test.${randomUUID()}`)
    expect(await body<Answer>(await send(c, '/telemetry/public-events', { source: 'web', events: [e] }, { csrf: false }), 202)).toEqual({ accepted: 1, dropped: 0 })
    const [row] = await t.db.select().from(telemetryEvents).where(eq(telemetryEvents.name, e.name))
    expect(row).toMatchObject({ tenantId: null, userId: null, visitorId: e.correlationId, correlationId: e.correlationId })
  })

  test('a beacon: text/plain JSON to /telemetry/events with the cookies and no CSRF header is accepted; from another site it is refused', async () => {
    const { writer, tenant } = await organisation(t)
    const e = event(`web.Beacon.${randomUUID()}`)
    const payload = { source: 'web', events: [e] }
    for (const contentType of ['text/plain;charset=UTF-8', 'application/json']) {
      const response = await send(writer.c, '/telemetry/events', payload, { contentType, csrf: false, origin: TEST_ORIGIN })
      expect(await body<Answer>(response, 202)).toEqual({ accepted: 1, dropped: 0 })
    }
    const rows = await t.db.select().from(telemetryEvents).where(eq(telemetryEvents.name, e.name))
    expect(rows.map((r) => r.tenantId)).toEqual([tenant.id, tenant.id])
    await expectProblem(await send(writer.c, '/telemetry/events', payload, { contentType: 'text/plain;charset=UTF-8', csrf: false, origin: 'https://evil.example' }), 403, 'KR_CSRF_CROSS_SITE')

    const anon = anonymous()
    expect(await body<Answer>(await send(anon, '/telemetry/public-events', payload, { contentType: 'text/plain;charset=UTF-8', csrf: false }), 202)).toEqual({ accepted: 1, dropped: 0 })
    const err = frontendError({ message: `beacon ${randomUUID()}` })
    expect(await body<Answer>(await send(anon, '/telemetry/public-errors', { events: [err] }, { contentType: 'text/plain;charset=UTF-8', csrf: false }), 202)).toEqual({
      accepted: 1,
      dropped: 0,
    })
  })

  test('/telemetry/public-errors: with a valid session the error carries the organisation and user, without one it carries neither; fingerprints ignore positions and query strings', async () => {
    const { reader, tenant } = await organisation(t)
    const message = `boom ${randomUUID()}`
    const first = frontendError({ message })
    const moved = frontendError({
      message,
      stack: 'TypeError: x is not a function\n    at run (https://portal.test/assets/app-1.js?v=4:11:9)\n    at main (https://portal.test/assets/app-1.js:22:3)',
    })
    expect(await body<Answer>(await send(reader.c, '/telemetry/public-errors', { events: [first] }), 202)).toEqual({ accepted: 1, dropped: 0 })
    expect(await body<Answer>(await send(anonymous(), '/telemetry/public-errors', { events: [moved] }, { csrf: false }), 202)).toEqual({ accepted: 1, dropped: 0 })

    const rows = await t.db.select().from(frontendErrors).where(eq(frontendErrors.message, message))
    const signed = rows.find((r) => r.tenantId !== null)
    const unsigned = rows.find((r) => r.tenantId === null)
    expect(signed).toMatchObject({ tenantId: tenant.id, userId: reader.user.id, visitorId: first.correlationId, name: 'TypeError', path: '/projects', release: '0.1.0', userAgent: 'Mozilla/5.0 Test', stack: first.stack })
    expect(unsigned).toMatchObject({ userId: null, visitorId: moved.correlationId })
    expect(signed?.fingerprint).toMatch(/^[0-9a-f]{64}$/)
    expect(signed?.fingerprint).toBe(unsigned?.fingerprint)
    expect(signed?.fingerprint).toBe(errorFingerprint(message, first.stack))
    expect(errorFingerprint(message, first.stack)).not.toBe(errorFingerprint(`${message}!`, first.stack))
    expect(errorFingerprint(message, first.stack)).not.toBe(errorFingerprint(message, first.stack.replace('at run', 'at walk')))
    // Firefox's form: fn@url:line:col
    expect(errorFingerprint('m', 'run@https://a/x.js?v=1:1:2\nmain@https://a/x.js:3:4')).toBe(errorFingerprint('m', 'run@https://a/x.js?v=2:9:9\nmain@https://a/x.js:8:8'))
  })

  test('a batch with bad events stores the good ones and counts the bad ones as dropped', async () => {
    const { writer, admin, tenant } = await organisation(t)
    const name = `web.Mixed.${randomUUID()}`
    const events = [
      event(name),
      { ...event(name), name: '' },
      { ...event(name), timestampUtc: 'yesterday' },
      { ...event(name), timestampUtc: '0000-01-01T00:00:00Z' },
      { ...event(name), properties: { text: 'nul\u0000byte' } },
      { ...event(name), properties: { deep: { deeper: { deepest: 1 } } } },
      { ...event(name), source: 'ios' },
      5,
      null,
      'event',
      event(name),
    ]
    expect(await body<Answer>(await send(writer.c, '/telemetry/events', { source: 'web', events }), 202)).toEqual({ accepted: 2, dropped: 9 })
    expect(await t.db.select().from(telemetryEvents).where(eq(telemetryEvents.name, name))).toHaveLength(2)

    const message = `mixed ${randomUUID()}`
    const errors = [
      frontendError({ message }),
      frontendError({ message, stack: 'x'.repeat(STACK_TRACE_MAX + 1) }),
      frontendError({ message: `${message}\u0000` }),
      frontendError({ message: `${message}\ud800` }),
      { ...frontendError({ message }), message: undefined },
      frontendError({ message, stack: 'y'.repeat(STACK_TRACE_MAX) }),
    ]
    expect(await body<Answer>(await send(writer.c, '/telemetry/public-errors', { events: errors }), 202)).toEqual({ accepted: 2, dropped: 4 })
    expect(await t.db.select().from(frontendErrors).where(and(eq(frontendErrors.message, message), eq(frontendErrors.tenantId, tenant.id)))).toHaveLength(2)

    const day = today((await statsOf(admin.c)).organisation)
    expect(day.events).toEqual({ accepted: 2, dropped: { invalid: 9, rateLimited: 0, tooLarge: 0 } })
    expect(day.errors).toEqual({ accepted: 2, dropped: { invalid: 4, rateLimited: 0, tooLarge: 0 } })
  })

  test('a body that is not a batch is a 400 problem, counted as one dropped', async () => {
    const { writer, admin } = await organisation(t)
    const notBatches: Array<[string, string]> = [
      ['/telemetry/events', '[]'],
      ['/telemetry/events', '"events"'],
      ['/telemetry/events', '{}'],
      ['/telemetry/events', '{"events": 5}'],
      ['/telemetry/events', '{"events": ['],
      ['/telemetry/events', ''],
      ['/telemetry/events', JSON.stringify({ events: Array.from({ length: 101 }, () => event()) })],
      ['/telemetry/public-errors', JSON.stringify({ events: Array.from({ length: 51 }, () => frontendError()) })],
      ['/telemetry/public-errors', '{"events": {"0": {}}}'],
    ]
    for (const [path, raw] of notBatches) {
      const response = await send(writer.c, path, undefined, { raw })
      await expectProblem(response, 400, 'KR_VALIDATION')
    }
    const day = today((await statsOf(admin.c)).organisation)
    expect(day.events.dropped.invalid).toBe(7)
    expect(day.errors.dropped.invalid).toBe(2)
    // 100 events is still a batch.
    expect(await body<Answer>(await send(writer.c, '/telemetry/events', { events: Array.from({ length: 100 }, () => event()) }), 202)).toEqual({ accepted: 100, dropped: 0 })
  })

  test('bodies over the limit (64 KB events, 256 KB errors) are 413 problems, counted as too large', async () => {
    const { writer, admin } = await organisation(t)
    const big = (bytes: number) => JSON.stringify({ events: [event('web.Big', { properties: { pad: 'p'.repeat(bytes) } })] })
    await expectProblem(await send(writer.c, '/telemetry/events', undefined, { raw: big(64 * 1024) }), 413, 'KR_BODY_TOO_LARGE')
    await expectProblem(await send(anonymous(), '/telemetry/public-events', undefined, { raw: big(64 * 1024), csrf: false }), 413, 'KR_BODY_TOO_LARGE')
    // Under 256 KB is fine for errors (each stack at most 4000 characters)…
    const errors = Array.from({ length: 50 }, () => frontendError({ stack: 's'.repeat(STACK_TRACE_MAX), message: 'm'.repeat(500) }))
    expect(await body<Answer>(await send(writer.c, '/telemetry/public-errors', { events: errors }), 202)).toEqual({ accepted: 50, dropped: 0 })
    // …over it is not, whatever it holds.
    const over = JSON.stringify({ events: errors, pad: 'x'.repeat(256 * 1024) })
    await expectProblem(await send(writer.c, '/telemetry/public-errors', undefined, { raw: over }), 413, 'KR_BODY_TOO_LARGE')
    const day = today((await statsOf(admin.c)).organisation)
    expect(day.events.dropped.tooLarge).toBe(1)
    expect(day.errors.dropped.tooLarge).toBe(1)
  })

  test('rate limits: a visitor past its batches a minute, and an address past its calls, get 429 with retryAfterSeconds', async () => {
    const { writer, admin } = await organisation(t)
    const vis = visitor()
    writer.c.jar.set(VISITOR_COOKIE, vis)
    for (let i = 0; i < INGEST_LIMITS.eventsVisitor.points; i++) {
      const response = await send(writer.c, '/telemetry/events', { events: [event()] })
      expect(response.status, await show(response)).toBe(202)
    }
    const refused = await expectProblem(await send(writer.c, '/telemetry/events', { events: [event(), event()] }), 429, 'KR_THROTTLED')
    expect(refused.retryAfterSeconds).toBeGreaterThan(0)
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60)
    // Errors have their own counter; another visitor is not held back.
    expect((await send(writer.c, '/telemetry/public-errors', { events: [frontendError()] })).status).toBe(202)
    writer.c.jar.set(VISITOR_COOKIE, visitor())
    expect((await send(writer.c, '/telemetry/events', { events: [event()] })).status).toBe(202)
    // Without a cookie the events' correlation id names the visitor.
    const anon = anonymous()
    const correlationId = visitor()
    for (let i = 0; i < INGEST_LIMITS.eventsVisitor.points; i++) await send(anon, '/telemetry/public-events', { events: [event('web.A', { correlationId })] }, { csrf: false })
    await expectProblem(await send(anon, '/telemetry/public-events', { events: [event('web.A', { correlationId })] }, { csrf: false }), 429, 'KR_THROTTLED')
    // A minute later the visitor may send again.
    t.now.advance(61_000)
    try {
      writer.c.jar.set(VISITOR_COOKIE, vis)
      expect((await send(writer.c, '/telemetry/events', { events: [event()] })).status).toBe(202)
    } finally {
      t.now.reset()
    }

    const day = today((await statsOf(admin.c)).organisation)
    expect(day.events.dropped.rateLimited).toBe(2)

    // One address, many visitors: the address limit.
    const address = uniqueAddress()
    const crowd = client(t, { remoteAddress: address })
    for (let i = 0; i < INGEST_LIMITS.address.points; i++) {
      const response = await send(crowd, '/telemetry/public-events', { events: [] }, { csrf: false })
      expect(response.status).toBe(202)
    }
    const blocked = await expectProblem(await send(crowd, '/telemetry/public-errors', { events: [frontendError()] }, { csrf: false }), 429, 'KR_THROTTLED')
    expect(blocked.retryAfterSeconds).toBeGreaterThan(0)
    const retryAfter = Number((await send(crowd, '/telemetry/public-events', { events: [] }, { csrf: false })).headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(0)
  })
})

describe('every route, 1,000 generated bad bodies each: never a 5xx', () => {
  const oddText = fc.constantFrom('', ' ', '\u0000', 'nul\u0000byte', '\ud800', '\u202eevil', '日本語', '\r\n', 'a'.repeat(5000), '1e309', 'NaN', '__proto__', 'constructor')
  const anyText = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), oddText)
  const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 4 }), oddText, fc.constant(null), fc.double(), fc.integer())
  const timestamp = fc.oneof(
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    fc.constantFrom('2026-02-31T00:00:00Z', '2026-11-25T24:00:00Z', '9999-12-31T23:59:59Z', '0000-01-01T00:00:00Z', '2026-11-25'),
    anyText,
  )
  const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, anyValue)
  const telemetryEvent = fc.record(
    {
      name: maybe(anyText),
      properties: maybe(fc.dictionary(anyText, anyValue, { maxKeys: 6 })),
      source: maybe(fc.constantFrom('web', 'ios')),
      timestampUtc: maybe(timestamp),
      correlationId: maybe(anyText),
    },
    { requiredKeys: [] },
  )
  const errorEvent = fc.record(
    {
      name: maybe(anyText),
      timestampUtc: maybe(timestamp),
      message: maybe(anyText),
      stack: maybe(fc.oneof(anyText, fc.constant('x'.repeat(STACK_TRACE_MAX + 1)), fc.constant('at a (b:1:2)\n'.repeat(400)))),
      path: maybe(anyText),
      userAgent: maybe(anyText),
      release: maybe(anyText),
      correlationId: maybe(anyText),
    },
    { requiredKeys: [] },
  )
  const deep = fc.integer({ min: 10, max: 30_000 }).map((n) => `{"events":[{"name":"x","timestampUtc":"2026-11-25T00:00:00Z","properties":{"p":${'['.repeat(n)}${']'.repeat(n)}}}]}`)
  const rawText = fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.constantFrom('{', '{"events":[', 'null', '[]', '{"events":null}', '\u0000'), deep)

  const cases = [
    { path: '/telemetry/events', signedIn: true, batch: fc.record({ source: maybe(fc.constant('web')), events: fc.array(fc.oneof(telemetryEvent, anyValue), { maxLength: 6 }) }, { requiredKeys: [] }) },
    { path: '/telemetry/public-events', signedIn: false, batch: fc.record({ source: maybe(fc.constant('web')), events: fc.array(fc.oneof(telemetryEvent, anyValue), { maxLength: 6 }) }, { requiredKeys: [] }) },
    { path: '/telemetry/public-errors', signedIn: true, batch: fc.record({ events: fc.array(fc.oneof(errorEvent, anyValue), { maxLength: 6 }) }, { requiredKeys: [] }) },
  ]

  for (const { path, signedIn, batch } of cases) {
    test(`POST ${path}`, { timeout: 240_000 }, async () => {
      const { writer } = await organisation(t)
      const statuses = new Map<number, number>()
      const request = fc.record({
        body: fc.oneof({ weight: 6, arbitrary: batch.map((b) => JSON.stringify(b)) }, { weight: 2, arbitrary: anyValue.map((v) => JSON.stringify(v) ?? 'null') }, { weight: 2, arbitrary: rawText }),
        contentType: fc.constantFrom('application/json', 'text/plain;charset=UTF-8', 'text/plain', 'application/octet-stream'),
      })
      await fc.assert(
        fc.asyncProperty(request, async ({ body: raw, contentType }) => {
          const caller = signedIn ? writer.c : client(t)
          const response = await t.fetch(path, {
            method: 'POST',
            headers: { 'content-type': contentType, ...(signedIn && { cookie: caller.jar.apply().get('cookie') ?? '', 'x-csrf-token': caller.jar.get(CSRF_COOKIE) ?? '' }) },
            body: raw,
            remoteAddress: uniqueAddress(),
          })
          const text = await response.text()
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
          if (response.status >= 500) throw new Error(`${path} answered ${response.status}: ${text.slice(0, 300)}`)
          if (response.status === 202) {
            const answer = JSON.parse(text) as Answer
            const sent = (JSON.parse(raw) as { events: unknown[] }).events
            expect(answer.accepted + answer.dropped).toBe(sent.length)
          } else expect(response.headers.get('content-type')).toBe('application/problem+json')
        }),
        // FUZZ_RUNS as the contract fuzz: a short run in `npm test`, `npm run test:fuzz:long` style runs for more.
        { numRuns: Number(process.env.FUZZ_RUNS) || 200 },
      )
      console.info(`fuzz ${path}: ${[...statuses].map(([s, n]) => `${s}×${n}`).join(' ')}`)
      expect(statuses.get(202)).toBeGreaterThan(0)
    })
  }
})

describe('stats', () => {
  test('GET /api/admin/telemetry/stats: 14 days, the caller’s organisation only, untenanted apart; 403 for members, 401 signed out', async () => {
    const a = await organisation(t)
    const b = await organisation(t)
    await send(a.writer.c, '/telemetry/events', { events: [event(), event(), 7] })
    await send(b.writer.c, '/telemetry/events', { events: [event(), event(), event(), event(), event()] })
    await send(b.writer.c, '/telemetry/public-errors', { events: [frontendError(), 'bad'] })
    const before = today((await statsOf(a.admin.c)).untenanted)
    await send(anonymous(), '/telemetry/public-events', { events: [event(), 'bad'] }, { csrf: false })

    const stats = await statsOf(a.admin.c)
    expect(stats.fromDay).toBe('2026-11-12')
    expect(stats.toDay).toBe(TODAY)
    expect(stats.organisation.map((d) => d.day)).toEqual(Array.from({ length: 14 }, (_, i) => new Date(Date.parse('2026-11-12T00:00:00Z') + i * DAY_MS).toISOString().slice(0, 10)))
    expect(stats.untenanted).toHaveLength(14)
    const day = today(stats.organisation)
    expect(day.events).toEqual({ accepted: 2, dropped: { invalid: 1, rateLimited: 0, tooLarge: 0 } })
    expect(day.errors).toEqual({ accepted: 0, dropped: { invalid: 0, rateLimited: 0, tooLarge: 0 } })
    const untenanted = today(stats.untenanted)
    expect(untenanted.events.accepted).toBe(before.events.accepted + 1)
    expect(untenanted.events.dropped.invalid).toBe(before.events.dropped.invalid + 1)

    const bDay = today((await statsOf(b.admin.c)).organisation)
    expect(bDay.events.accepted).toBe(5)
    expect(bDay.errors).toEqual({ accepted: 1, dropped: { invalid: 1, rateLimited: 0, tooLarge: 0 } })

    // Older days are counted on their day; days before the window are not shown.
    await withTenant(t.db, a.tenant.id, (tx) =>
      tx.insert(telemetryIngestCounts).values([
        { tenantId: a.tenant.id, day: '2026-11-12', kind: 'errors', outcome: 'rate-limited', count: 4 },
        { tenantId: a.tenant.id, day: '2026-11-11', kind: 'errors', outcome: 'accepted', count: 9 },
      ]),
    )
    const later = await statsOf(a.admin.c)
    expect(later.organisation[0]?.errors.dropped.rateLimited).toBe(4)
    expect(later.organisation.reduce((n, d) => n + d.errors.accepted, 0)).toBe(0)

    await expectProblem(await a.writer.c.get('/api/admin/telemetry/stats'), 403)
    await expectProblem(await a.reader.c.get('/api/admin/telemetry/stats'), 403)
    await expectProblem(await client(t).get('/api/admin/telemetry/stats'), 401)
  })

  test('row-level security: a tenant transaction sees its own rows only, never untenanted ones; outside every tenant only untenanted ones are visible', async () => {
    const a = await organisation(t)
    const b = await organisation(t)
    await send(a.writer.c, '/telemetry/events', { events: [event()] })
    await send(b.writer.c, '/telemetry/events', { events: [event()] })
    await send(anonymous(), '/telemetry/public-events', { events: [event()] }, { csrf: false })
    await send(anonymous(), '/telemetry/public-errors', { events: [frontendError()] }, { csrf: false })

    const seenByA = await withTenant(t.db, a.tenant.id, async (tx) => ({
      events: await tx.select({ tenantId: telemetryEvents.tenantId }).from(telemetryEvents),
      errors: await tx.select({ tenantId: frontendErrors.tenantId }).from(frontendErrors),
      counts: await tx.select({ tenantId: telemetryIngestCounts.tenantId }).from(telemetryIngestCounts),
    }))
    expect(seenByA.events.length).toBeGreaterThan(0)
    for (const row of [...seenByA.events, ...seenByA.errors, ...seenByA.counts]) expect(row.tenantId).toBe(a.tenant.id)

    const outside = await withUser(t.db, undefined, async (tx) => ({
      events: await tx.select({ tenantId: telemetryEvents.tenantId }).from(telemetryEvents),
      errors: await tx.select({ tenantId: frontendErrors.tenantId }).from(frontendErrors),
    }))
    expect(outside.events.length).toBeGreaterThan(0)
    expect(outside.errors.length).toBeGreaterThan(0)
    for (const row of [...outside.events, ...outside.errors]) expect(row.tenantId).toBeNull()

    // A tenant transaction cannot write a row for another organisation or for none.
    await expect(
      withTenant(t.db, a.tenant.id, (tx) => tx.insert(telemetryEvents).values({ tenantId: null, name: 'x', source: 'web', occurredAt: t.now() })),
    ).rejects.toThrow()
    await expect(
      withTenant(t.db, a.tenant.id, (tx) => tx.insert(telemetryEvents).values({ tenantId: b.tenant.id, name: 'x', source: 'web', occurredAt: t.now() })),
    ).rejects.toThrow()
  })
})

describe('retention', () => {
  test('the pass deletes telemetry older than 30 days and errors older than 90 (by arrival), in every organisation and untenanted, and nothing younger', async () => {
    const a = await organisation(t)
    const now = t.now()
    const ago = (days: number) => new Date(now.getTime() - days * DAY_MS)
    const tag = randomUUID()
    const eventRow = (tenantId: string | null, days: number) => ({ tenantId, name: `web.Retention.${tag}.${days}`, source: 'web', occurredAt: ago(days), receivedAt: ago(days) })
    const errorRow = (tenantId: string | null, days: number) => ({
      tenantId,
      name: 'Error',
      message: `retention ${tag} ${days}`,
      fingerprint: 'f',
      occurredAt: ago(days),
      receivedAt: ago(days),
    })
    // The owner connection writes them, as old as needed.
    await t.db.insert(telemetryEvents).values([eventRow(a.tenant.id, 31), eventRow(a.tenant.id, 29), eventRow(null, 31), eventRow(null, 29)])
    await t.db.insert(frontendErrors).values([errorRow(a.tenant.id, 91), errorRow(a.tenant.id, 89), errorRow(null, 91), errorRow(null, 31)])
    await t.db.insert(telemetryIngestCounts).values([
      { tenantId: a.tenant.id, day: '2026-08-01', kind: 'events', outcome: 'accepted', count: 1 },
      { tenantId: a.tenant.id, day: '2026-11-01', kind: 'events', outcome: 'accepted', count: 1 },
    ])

    // Two instances at once: each scope is worked once, and neither fails.
    const [first, second] = await Promise.all([purgeTelemetry(t.db, now), purgeTelemetry(t.db, now)])
    expect((first?.events ?? 0) + (second?.events ?? 0)).toBeGreaterThanOrEqual(2)

    const events = await t.db.select({ name: telemetryEvents.name, tenantId: telemetryEvents.tenantId }).from(telemetryEvents)
    const left = events.filter((e) => e.name.startsWith(`web.Retention.${tag}`))
    expect(left.map((e) => [e.tenantId, e.name.split('.').at(-1)])).toHaveLength(2)
    expect(left.map((e) => [e.tenantId, e.name.split('.').at(-1)])).toEqual(
      expect.arrayContaining([
        [a.tenant.id, '29'],
        [null, '29'],
      ]),
    )
    const errors = (await t.db.select({ message: frontendErrors.message, tenantId: frontendErrors.tenantId }).from(frontendErrors)).filter((e) => e.message.startsWith(`retention ${tag}`))
    expect(errors).toHaveLength(2)
    expect(errors.map((e) => [e.tenantId, e.message.split(' ').at(-1)])).toEqual(
      expect.arrayContaining([
        [a.tenant.id, '89'],
        [null, '31'],
      ]),
    )
    const counters = await t.db.select({ day: telemetryIngestCounts.day }).from(telemetryIngestCounts).where(eq(telemetryIngestCounts.tenantId, a.tenant.id))
    expect(counters.map((c) => c.day)).toEqual(['2026-11-01'])

    // A later pass finds nothing more to do until the clock moves on.
    expect(await purgeTelemetry(t.db, now)).toEqual({ events: 0, errors: 0, counters: 0 })
    const later = await purgeTelemetry(t.db, new Date(now.getTime() + 2 * DAY_MS))
    expect(later.events).toBeGreaterThanOrEqual(2)
    const untenantedLeft = await t.db.select({ id: telemetryEvents.id }).from(telemetryEvents).where(and(isNull(telemetryEvents.tenantId), eq(telemetryEvents.name, `web.Retention.${tag}.29`)))
    expect(untenantedLeft).toEqual([])
  })
})

test('the three calls and the stats are in /api/openapi.json with their body schemas and limits', async () => {
  const document = (await (await t.fetch('/api/openapi.json')).json()) as OpenApiDocument
  expect(document.paths['/telemetry/events']?.post?.['x-max-body-bytes']).toBe(64 * 1024)
  expect(document.paths['/telemetry/public-events']?.post?.['x-max-body-bytes']).toBe(64 * 1024)
  expect(document.paths['/telemetry/public-errors']?.post?.['x-max-body-bytes']).toBe(256 * 1024)
  const events = document.paths['/telemetry/events']?.post?.requestBody?.content['application/json']?.schema as { properties: { events: { maxItems: number } } }
  expect(events.properties.events.maxItems).toBe(100)
  expect(document.paths['/telemetry/events']?.post?.responses['429']).toBeDefined()
  expect(document.paths['/api/admin/telemetry/stats']?.get?.responses['200']?.content?.['application/json']).toBeDefined()
})

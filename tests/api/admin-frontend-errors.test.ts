import { randomUUID } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { eq } from 'drizzle-orm'
import { transformSync } from 'esbuild'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { frontendErrors, telemetryEvents } from '#server/db/schema-observability'
import { withTenant } from '#server/db/tenancy'
import { client, expectProblem, uniqueAddress, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, organisation, patch } from '#tests/helpers/reporting-a'
import type { FrontendErrorDetail, FrontendErrorList } from '~/lib/admin/frontend-errors'
import type { TelemetryCollection } from '~/lib/telemetry-settings'

/** Issue 15: Administration › Frontend errors through HTTP: groups, filters, paging, the mapped stack, tenancy and access. */

let t: TestBackend
let mapsDir: string
/** Where the minified build's `throw` sits, as a browser reports it. */
let thrownAt: { line: number; column: number }

const SOURCE = ['export function saveReport(items: string[]) {', '  if (items.length > 2) throwTooMany(items.length)', '  return items.length', '}', '', 'function throwTooMany(n: number): never {', "  throw new Error('too many: ' + n)", '}', ''].join('\n')
const SCRIPT = 'report-save-Qw12Er.js'

beforeAll(async () => {
  mapsDir = await mkdtemp(path.join(os.tmpdir(), 'sp-fe-maps-'))
  const out = transformSync(SOURCE, { loader: 'ts', format: 'esm', minify: true, sourcemap: 'external', sourcefile: '../../app/lib/report-save.ts' })
  await mkdir(path.join(mapsDir, 'assets'))
  await writeFile(path.join(mapsDir, 'assets', `${SCRIPT}.map`), out.map)
  const lines = out.code.split('\n')
  const line = lines.findIndex((l) => l.includes('throw new Error'))
  thrownAt = { line: line + 1, column: (lines[line]?.indexOf('throw new Error') ?? 0) + 1 }
  t = await createTestBackend({ now: '2026-11-25T12:00:00.000Z', env: { SOURCE_MAPS_DIR: mapsDir } })
})

afterAll(async () => {
  await t?.close()
  await rm(mapsDir, { recursive: true, force: true })
})

function stackOf(message: string, script = SCRIPT, at = thrownAt) {
  return `Error: ${message}\n    at r (http://portal.test/assets/${script}:${at.line}:${at.column})\n    at HTMLButtonElement.onclick (http://portal.test/assets/entry-Zz.js:1:99)`
}

function frontendError(message: string, extra: Record<string, unknown> = {}) {
  return {
    name: 'web.error.window',
    timestampUtc: t.now().toISOString(),
    message,
    stack: stackOf(message),
    path: '/reports',
    userAgent: 'Mozilla/5.0 Test',
    release: '0.1.0+abc1234',
    correlationId: `vis${randomUUID().replaceAll('-', '').slice(0, 20)}`,
    ...extra,
  }
}

async function report(c: TestClient, ...events: Array<Record<string, unknown>>) {
  const answer = await body<{ accepted: number }>(await c.request('/telemetry/public-errors', { method: 'POST', json: { events } }), 202)
  expect(answer.accepted).toBe(events.length)
  t.now.advance(60_000)
}

test('groups by fingerprint with counts, first and last seen, people, visitors, latest path and release; only this organisation’s; filters and paging', async () => {
  const { admin, writer, reader, tenant } = await organisation(t)
  const other = await organisation(t)
  const tag = randomUUID().slice(0, 8)
  const first = t.now().toISOString()
  await report(writer.c, frontendError(`too many: 3 ${tag}`, { correlationId: 'visitor-one-0001' }))
  await report(reader.c, frontendError(`too many: 3 ${tag}`, { correlationId: 'visitor-two-0002', path: '/items', release: '0.1.0+def5678' }))
  await report(writer.c, frontendError(`other ${tag}`, { correlationId: 'visitor-one-0001' }))
  await report(writer.c, frontendError(`too many: 3 ${tag}`, { correlationId: 'visitor-one-0001', path: '/projects' }))
  const last = new Date(t.now().getTime() - 60_000).toISOString()
  await report(other.writer.c, frontendError(`too many: 3 ${tag}`))
  await report(client(t, { remoteAddress: uniqueAddress() }), frontendError(`too many: 3 ${tag}`))

  const list = await body<FrontendErrorList>(await admin.c.get('/api/admin/frontend-errors'))
  expect(list).toMatchObject({ page: 1, pageSize: 50, hasMore: false })
  expect(list.items).toHaveLength(2)
  const [tooMany, otherOne] = list.items
  expect(tooMany).toMatchObject({
    message: `too many: 3 ${tag}`,
    name: 'web.error.window',
    count: 3,
    users: 2,
    visitors: 2,
    firstSeenUtc: first,
    lastSeenUtc: last,
    lastPath: '/projects',
    lastRelease: '0.1.0+abc1234',
  })
  expect(tooMany?.fingerprint).toMatch(/^[0-9a-f]{64}$/)
  expect(otherOne).toMatchObject({ message: `other ${tag}`, count: 1, users: 1, visitors: 1 })

  // Filters: q over message, path and release; since; visitor (the error's correlation id).
  const q = async (query: string) => (await body<FrontendErrorList>(await admin.c.get(`/api/admin/frontend-errors?${query}`))).items
  expect((await q('q=OTHER')).map((g) => g.message)).toEqual([`other ${tag}`])
  expect(await q('q=%2Fitems')).toEqual([expect.objectContaining({ count: 1, lastPath: '/items' })])
  expect(await q('q=def5678')).toEqual([expect.objectContaining({ count: 1, lastRelease: '0.1.0+def5678' })])
  expect(await q('q=%25')).toEqual([])
  expect(await q('visitor=visitor-two-0002')).toEqual([expect.objectContaining({ count: 1, visitors: 1 })])
  expect((await q(`since=${encodeURIComponent(last)}`)).map((g) => g.count)).toEqual([1])
  expect(await q('since=2099-01-01')).toEqual([])
  expect((await q('since=2026-11-25&q=')).length).toBe(2)

  // Paging.
  const one = await body<FrontendErrorList>(await admin.c.get('/api/admin/frontend-errors?limit=1'))
  expect(one).toMatchObject({ pageSize: 1, hasMore: true, items: [expect.objectContaining({ fingerprint: tooMany?.fingerprint })] })
  const two = await body<FrontendErrorList>(await admin.c.get('/api/admin/frontend-errors?limit=1&page=2'))
  expect(two).toMatchObject({ page: 2, hasMore: false, items: [expect.objectContaining({ fingerprint: otherOne?.fingerprint })] })

  // The other organisation sees its own one, never these.
  const theirs = await body<FrontendErrorList>(await other.admin.c.get('/api/admin/frontend-errors'))
  expect(theirs.items).toEqual([expect.objectContaining({ count: 1, message: `too many: 3 ${tag}` })])
  expect(tenant.id).not.toBe(other.tenant.id)
})

test('one error: the people, its occurrences newest first with the stack mapped back to the source; unmapped frames as they came', async () => {
  const { admin, writer } = await organisation(t)
  const tag = randomUUID().slice(0, 8)
  await report(writer.c, frontendError(`mapped ${tag}`, { release: '0.1.0+old' }))
  await report(writer.c, frontendError(`mapped ${tag}`))
  const [group] = (await body<FrontendErrorList>(await admin.c.get(`/api/admin/frontend-errors?q=${tag}`))).items
  if (!group) throw new Error('no group')

  const detail = await body<FrontendErrorDetail>(await admin.c.get(`/api/admin/frontend-errors/${group.fingerprint}`))
  expect(detail.group).toEqual(group)
  expect(detail.affectedUsers).toEqual([{ id: writer.user.id, displayName: expect.any(String), email: writer.user.email }])
  expect(detail.occurrences).toMatchObject({ page: 1, pageSize: 50, hasMore: false })
  expect(detail.occurrences.items.map((o) => o.release)).toEqual(['0.1.0+abc1234', '0.1.0+old'])
  const [latest] = detail.occurrences.items
  expect(latest).toMatchObject({ name: 'web.error.window', message: `mapped ${tag}`, path: '/reports', user: { id: writer.user.id }, stack: stackOf(`mapped ${tag}`) })
  expect(latest?.frames).toEqual([
    { text: expect.stringContaining(SCRIPT), functionName: 'throwTooMany', file: 'app/lib/report-save.ts', line: 7, column: 3, mapped: true },
    { text: 'at HTMLButtonElement.onclick (http://portal.test/assets/entry-Zz.js:1:99)', functionName: 'HTMLButtonElement.onclick', file: 'http://portal.test/assets/entry-Zz.js', line: 1, column: 99, mapped: false },
  ])
  const paged = await body<FrontendErrorDetail>(await admin.c.get(`/api/admin/frontend-errors/${group.fingerprint}?limit=1&page=2`))
  expect(paged.occurrences).toMatchObject({ page: 2, pageSize: 1, hasMore: false, items: [expect.objectContaining({ release: '0.1.0+old' })] })
})

test('another organisation’s fingerprint and a malformed one are 404; a member who is not an administrator is 403; bad parameters are 400', async () => {
  const { admin, writer } = await organisation(t)
  const other = await organisation(t)
  const tag = randomUUID().slice(0, 8)
  await report(other.writer.c, frontendError(`theirs ${tag}`))
  const [theirs] = (await body<FrontendErrorList>(await other.admin.c.get(`/api/admin/frontend-errors?q=${tag}`))).items
  if (!theirs) throw new Error('no group')
  await report(writer.c, frontendError(`ours ${tag}`))

  await expectProblem(await admin.c.get(`/api/admin/frontend-errors/${theirs.fingerprint}`), 404)
  await expectProblem(await admin.c.get('/api/admin/frontend-errors/not-a-fingerprint'), 404)
  expect((await body<FrontendErrorList>(await admin.c.get(`/api/admin/frontend-errors?q=${tag}`))).items.map((g) => g.message)).toEqual([`ours ${tag}`])

  await expectProblem(await writer.c.get('/api/admin/frontend-errors'), 403)
  await expectProblem(await writer.c.get(`/api/admin/frontend-errors/${theirs.fingerprint}`), 403)

  const bad = await expectProblem(await admin.c.get(`/api/admin/frontend-errors?limit=0&page=x&since=yesterday&q=${'x'.repeat(201)}`), 400)
  expect(Object.keys(bad.errors ?? {}).sort()).toEqual(['limit', 'page', 'q', 'since'])
  await expectProblem(await admin.c.get(`/api/admin/frontend-errors/${theirs.fingerprint}?limit=500`), 400)
})

test('“identify users in reports” off: the organisation’s errors and events are stored without the person', async () => {
  const { admin, writer, tenant } = await organisation(t)
  await body(await patch(admin.c, '/api/settings/diagnostics', { identifyUsersInReports: false }))
  const tag = randomUUID().slice(0, 8)
  await report(writer.c, frontendError(`anonymous ${tag}`))
  await body(
    await writer.c.request('/telemetry/events', {
      method: 'POST',
      json: { source: 'web', events: [{ name: 'web.sync.state', properties: { status: 'failed' }, timestampUtc: t.now().toISOString(), correlationId: 'visitor-anon-0001' }] },
    }),
    202,
  )
  const rows = await withTenant(t.db, tenant.id, async (tx) => ({
    errors: await tx.select({ userId: frontendErrors.userId }).from(frontendErrors).where(eq(frontendErrors.tenantId, tenant.id)),
    events: await tx.select({ userId: telemetryEvents.userId }).from(telemetryEvents).where(eq(telemetryEvents.tenantId, tenant.id)),
  }))
  expect(rows.errors).toEqual([{ userId: null }])
  expect(rows.events).toEqual([{ userId: null }])
  const [group] = (await body<FrontendErrorList>(await admin.c.get(`/api/admin/frontend-errors?q=${tag}`))).items
  expect(group).toMatchObject({ users: 0, visitors: 1 })
})

test('GET /api/telemetry/settings: signed out no usage events, errors by default; a member gets the organisation’s configuration and switches', async () => {
  const signedOut = await body<TelemetryCollection>(await client(t, { remoteAddress: uniqueAddress() }).get('/api/telemetry/settings'))
  expect(signedOut).toEqual({ usage: false, samplingPercent: 0, errors: true })

  const { admin, writer } = await organisation(t)
  expect(await body<TelemetryCollection>(await writer.c.get('/api/telemetry/settings'))).toEqual({ usage: false, samplingPercent: 100, errors: true })

  await body(await admin.c.request('/api/admin/config/telemetry', { method: 'PUT', json: { values: { enabled: true, samplingPercent: 25 } }, headers: { 'if-match': '"0"' } }))
  // Configuration on, but Settings › Admin does not allow usage telemetry yet.
  expect(await body<TelemetryCollection>(await writer.c.get('/api/telemetry/settings'))).toEqual({ usage: false, samplingPercent: 25, errors: true })
  await body(await patch(admin.c, '/api/settings/diagnostics', { collectUsageTelemetry: true, collectFrontendErrors: false }))
  expect(await body<TelemetryCollection>(await writer.c.get('/api/telemetry/settings'))).toEqual({ usage: true, samplingPercent: 25, errors: false })
})

import { afterAll, beforeAll, expect, test } from 'vitest'
import { cspReports, telemetryIngestCounts } from '#server/db/schema-observability'
import { CSP_ADDRESS_LIMIT, cspReportToken, verifyCspReportToken } from '#server/domain/observability/csp'
import { purgeCspReports } from '#server/domain/observability/csp-retention'
import type { CspReportGroupPage, CspReportOccurrencePage } from '~/lib/admin/csp-reports'
import { expectProblem, show, uniqueAddress } from '#tests/helpers/auth'
import { createTestBackend, TEST_SESSION_SECRET, type TestBackend } from '#tests/helpers/backend'
import { body, organisation, signedMember } from '#tests/helpers/reporting-a'

/** CSP reports: POST /telemetry/csp-reports (both formats, limits, tokens) and GET /api/admin/security/csp-reports*. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-12-01T10:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

const legacy = (overrides: Record<string, unknown> = {}) => ({
  'csp-report': {
    'document-uri': 'http://portal.test/projects?token=secret#x',
    referrer: '',
    'violated-directive': 'script-src-elem',
    'effective-directive': 'script-src-elem',
    'original-policy': "default-src 'self'",
    disposition: 'enforce',
    'blocked-uri': 'https://example.invalid/x.js?k=1',
    'line-number': 12,
    'column-number': 7,
    'source-file': 'http://portal.test/assets/app.js',
    'status-code': 200,
    'script-sample': '',
    ...overrides,
  },
})

const reporting = (overrides: Record<string, unknown> = {}, type = 'csp-violation') => ({
  type,
  age: 10,
  url: 'http://portal.test/admin',
  user_agent: 'Chromium',
  body: {
    documentURL: 'http://portal.test/admin/audit',
    blockedURL: 'inline',
    effectiveDirective: 'script-src-elem',
    originalPolicy: "script-src 'self'",
    sourceFile: 'http://portal.test/admin/audit',
    sample: 'alert(1)',
    disposition: 'enforce',
    statusCode: 200,
    lineNumber: 3,
    columnNumber: 1,
    ...overrides,
  },
})

function send(payload: unknown, options: { type?: string; token?: string; address?: string; raw?: string } = {}) {
  return t.fetch(`/telemetry/csp-reports${options.token ? `?o=${encodeURIComponent(options.token)}` : ''}`, {
    method: 'POST',
    headers: { 'content-type': options.type ?? 'application/csp-report', 'user-agent': 'TestBrowser/1.0' },
    body: options.raw ?? JSON.stringify(payload),
    remoteAddress: options.address ?? uniqueAddress(),
  })
}

async function rowsOf(tenantId: string | null) {
  return (await t.db.select().from(cspReports)).filter((r) => r.tenantId === tenantId)
}

test('a legacy report-uri body with the organisation’s token is stored for it, URLs without query or fragment; no CSRF token needed', async () => {
  const { tenant } = await organisation(t)
  const response = await send(legacy(), { token: cspReportToken(TEST_SESSION_SECRET, tenant.id, t.now()) })
  expect(response.status, await show(response)).toBe(204)
  const [row] = await rowsOf(tenant.id)
  expect(row).toMatchObject({
    directive: 'script-src-elem',
    blockedUrl: 'https://example.invalid/x.js',
    documentUrl: 'http://portal.test/projects',
    sourceFile: 'http://portal.test/assets/app.js',
    lineNumber: 12,
    columnNumber: 7,
    disposition: 'enforce',
    sample: null,
    userAgent: 'TestBrowser/1.0',
  })
})

test('a Reporting API batch (application/reports+json) keeps its csp-violation reports and drops the rest, counted', async () => {
  const { tenant } = await organisation(t)
  const token = cspReportToken(TEST_SESSION_SECRET, tenant.id, t.now())
  const batch = [reporting(), reporting({ blockedURL: 'eval', effectiveDirective: 'script-src', disposition: 'report' }), reporting({}, 'deprecation'), reporting({ effectiveDirective: 'NOT A DIRECTIVE!' }), 42]
  expect((await send(batch, { type: 'application/reports+json', token })).status).toBe(204)
  const rows = await rowsOf(tenant.id)
  expect(rows.map((r) => `${r.directive} ${r.blockedUrl} ${r.disposition}`).sort()).toEqual(['script-src eval report', 'script-src-elem inline enforce'])
  expect(rows.find((r) => r.blockedUrl === 'inline')?.sample).toBe('alert(1)')
  const counts = (await t.db.select().from(telemetryIngestCounts)).filter((c) => c.tenantId === tenant.id && c.kind === 'csp')
  expect(Object.fromEntries(counts.map((c) => [c.outcome, c.count]))).toEqual({ accepted: 2, invalid: 3 })
})

test('plain JSON is read too; without a token, or with a forged or expired one, reports have no organisation', async () => {
  const { tenant } = await organisation(t)
  const before = (await rowsOf(null)).length
  const real = cspReportToken(TEST_SESSION_SECRET, tenant.id, t.now())
  const [id, exp] = real.split('.')
  const forged = [`${id}.${exp}.${'A'.repeat(32)}`, cspReportToken('another-secret-of-at-least-32-characters!!', tenant.id, t.now()), `${id}.zzzzzz.x`, 'garbage']
  expect((await send(reporting({ blockedURL: 'https://cdn.example/plain.js' }), { type: 'application/json' })).status).toBe(204)
  for (const token of forged) expect((await send(legacy({ 'blocked-uri': 'https://forged.example/f.js' }), { token })).status).toBe(204)
  expect(await rowsOf(tenant.id)).toEqual([])
  expect((await rowsOf(null)).length).toBe(before + 1 + forged.length)
  // Expired after 30 days.
  expect(verifyCspReportToken(TEST_SESSION_SECRET, real, t.now())).toBe(tenant.id)
  expect(verifyCspReportToken(TEST_SESSION_SECRET, real, new Date(t.now().getTime() + 31 * 86_400_000))).toBeNull()
})

test('bad bodies are never a 500: not JSON 400, too large 413, anything else 204 with nothing stored', async () => {
  const before = (await rowsOf(null)).length
  await expectProblem(await send(null, { raw: '{"csp-report":' }), 400)
  await expectProblem(await send(null, { raw: JSON.stringify(legacy({ 'script-sample': 'x'.repeat(70 * 1024) })) }), 413)
  for (const payload of [null, 1, 'text', [], {}, { 'csp-report': null }, { 'csp-report': { 'blocked-uri': 5 } }, [{ type: 'csp-violation', body: { effectiveDirective: 5 } }], { type: 'csp-violation', body: [] }, legacy({ 'line-number': 'abc', 'document-uri': 7 })]) {
    const response = await send(payload, { type: 'application/json' })
    expect(response.status, JSON.stringify(payload)).toBe(204)
  }
  // The last one has a directive: kept, its unreadable fields left empty.
  expect((await rowsOf(null)).length).toBe(before + 1)
  expect((await send(legacy({ 'blocked-uri': 'bad\u0000text' }), { type: 'application/json' })).status).toBe(204)
  expect((await rowsOf(null)).length).toBe(before + 1)
})

test(`one address may send ${CSP_ADDRESS_LIMIT.points} bodies a minute; then 429 with retryAfterSeconds`, async () => {
  const address = uniqueAddress()
  for (let i = 0; i < CSP_ADDRESS_LIMIT.points; i++) expect((await send([], { type: 'application/reports+json', address })).status).toBe(204)
  const refused = await expectProblem(await send([], { type: 'application/reports+json', address }), 429, 'KR_THROTTLED')
  expect(refused.retryAfterSeconds).toBeGreaterThan(0)
  t.now.advance(61_000)
  expect((await send([], { type: 'application/reports+json', address })).status).toBe(204)
})

test('the admin list groups by directive and blocked URL with a sample page and source; filters; paging; limit=1', async () => {
  t.now.set('2026-12-01T10:00:00.000Z')
  const { tenant } = await organisation(t)
  const token = cspReportToken(TEST_SESSION_SECRET, tenant.id, t.now())
  await send(legacy(), { token })
  t.now.set('2026-12-02T10:00:00.000Z')
  const admin = await signedMember(t, 'admin', tenant)
  await send(legacy({ 'document-uri': 'http://portal.test/reports', 'line-number': 99 }), { token })
  await send([reporting({ disposition: 'report' })], { type: 'application/reports+json', token })
  await send([reporting({ blockedURL: 'https://fonts.example/f.woff', effectiveDirective: 'font-src', sample: '' })], { type: 'application/reports+json', token })

  const page = await body<CspReportGroupPage>(await admin.c.get('/api/admin/security/csp-reports'))
  expect(page.items).toHaveLength(3)
  const script = page.items.find((g) => g.blockedUrl === 'https://example.invalid/x.js')!
  expect(script).toMatchObject({
    directive: 'script-src-elem',
    count: 2,
    firstSeenUtc: '2026-12-01T10:00:00.000Z',
    lastSeenUtc: '2026-12-02T10:00:00.000Z',
    sampleDocumentUrl: 'http://portal.test/reports',
    sampleSource: 'http://portal.test/assets/app.js:99:7',
    dispositions: ['enforce'],
  })

  const fonts = await body<CspReportGroupPage>(await admin.c.get('/api/admin/security/csp-reports?directive=font-src'))
  expect(fonts.items.map((g) => g.blockedUrl)).toEqual(['https://fonts.example/f.woff'])
  const reportOnly = await body<CspReportGroupPage>(await admin.c.get('/api/admin/security/csp-reports?disposition=report'))
  expect(reportOnly.items.map((g) => g.blockedUrl)).toEqual(['inline'])
  const since = await body<CspReportGroupPage>(await admin.c.get('/api/admin/security/csp-reports?since=2026-12-02T00:00:00Z&directive=script-src-elem'))
  expect(since.items.find((g) => g.blockedUrl === 'https://example.invalid/x.js')?.count).toBe(1)

  const sample = await body<CspReportGroupPage>(await admin.c.get('/api/admin/security/csp-reports?limit=1'))
  expect(sample.items).toHaveLength(1)
  expect(sample.nextPage).toBe(2)
  expect(sample.untenanted).toEqual([])
  const second = await body<CspReportGroupPage>(await admin.c.get('/api/admin/security/csp-reports?limit=2&page=2'))
  expect(second.items).toHaveLength(1)
  expect(second.nextPage).toBeNull()

  const reports = await body<CspReportOccurrencePage>(await admin.c.get(`/api/admin/security/csp-reports/groups/${script.group}`))
  expect(reports.items.map((r) => r.documentUrl)).toEqual(['http://portal.test/reports', 'http://portal.test/projects'])
  expect(reports.items[0]).toMatchObject({ lineNumber: 99, userAgent: 'TestBrowser/1.0', disposition: 'enforce' })
})

test('reports without an organisation appear only as counts, without pages; another organisation’s never; its group is 404', async () => {
  const mine = await organisation(t)
  const other = await organisation(t)
  await send(legacy({ 'blocked-uri': 'https://untenanted.example/u.js', 'document-uri': 'http://portal.test/auth/login?email=someone' }))
  await send(legacy({ 'blocked-uri': 'https://other.example/o.js' }), { token: cspReportToken(TEST_SESSION_SECRET, other.tenant.id, t.now()) })
  const page = await body<CspReportGroupPage>(await mine.admin.c.get('/api/admin/security/csp-reports'))
  expect(page.items).toEqual([])
  const untenanted = page.untenanted.find((g) => g.blockedUrl === 'https://untenanted.example/u.js')
  expect(untenanted).toMatchObject({ directive: 'script-src-elem', count: 1 })
  expect(Object.keys(untenanted!).sort()).toEqual(['blockedUrl', 'count', 'directive', 'firstSeenUtc', 'lastSeenUtc'])
  expect(JSON.stringify(page)).not.toContain('/auth/login')
  expect(JSON.stringify(page)).not.toContain('other.example')

  const theirs = await body<CspReportGroupPage>(await other.admin.c.get('/api/admin/security/csp-reports'))
  const group = theirs.items.find((g) => g.blockedUrl === 'https://other.example/o.js')!.group
  await expectProblem(await mine.admin.c.get(`/api/admin/security/csp-reports/groups/${group}`), 404)
  await expectProblem(await mine.admin.c.get('/api/admin/security/csp-reports/groups/nonsense'), 404)
  await expectProblem(await mine.admin.c.get(`/api/admin/security/csp-reports/groups/${Buffer.from(JSON.stringify(['script-src\u0000', 'x'])).toString('base64url')}`), 404)
})

test('a member who is not an administrator gets 403; bad parameters 400', async () => {
  const { admin, writer, reader } = await organisation(t)
  await expectProblem(await writer.c.get('/api/admin/security/csp-reports'), 403)
  await expectProblem(await reader.c.get('/api/admin/security/csp-reports/groups/abc'), 403)
  for (const [query, field] of [
    ['directive=Script Src', 'directive'],
    ['since=tomorrow', 'since'],
    ['disposition=block', 'disposition'],
    ['limit=0', 'limit'],
    ['page=-1', 'page'],
  ] as const) {
    const problem = await expectProblem(await admin.c.get(`/api/admin/security/csp-reports?${query}`), 400)
    expect(Object.keys(problem.errors ?? {}), query).toContain(field)
  }
})

test('retention: reports older than 90 days go, by when they arrived', async () => {
  const { tenant } = await organisation(t)
  await t.db.insert(cspReports).values([
    { tenantId: tenant.id, directive: 'img-src', blockedUrl: 'https://old.example/', disposition: 'enforce', receivedAt: new Date('2026-08-01T00:00:00Z') },
    { tenantId: tenant.id, directive: 'img-src', blockedUrl: 'https://new.example/', disposition: 'enforce', receivedAt: new Date('2026-11-01T00:00:00Z') },
    { tenantId: null, directive: 'img-src', blockedUrl: 'https://old-untenanted.example/', disposition: 'enforce', receivedAt: new Date('2026-08-01T00:00:00Z') },
  ])
  expect(await purgeCspReports(t.db, new Date('2026-12-01T00:00:00Z'))).toBeGreaterThanOrEqual(2)
  const left = (await t.db.select().from(cspReports)).map((r) => r.blockedUrl)
  expect(left).toContain('https://new.example/')
  expect(left).not.toContain('https://old.example/')
  expect(left).not.toContain('https://old-untenanted.example/')
})

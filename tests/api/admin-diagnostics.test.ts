import { mkdir, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import { withTenant } from '#server/db/tenancy'
import { diagnosticAttempts, diagnosticRuns } from '#server/db/schema-observability'
import { createLogger } from '#server/http/logger'
import { registerHubProbe } from '#server/domain/observability/diagnostics-checks'
import { claimScheduledRun, completeRun } from '#server/domain/observability/diagnostics'
import { purgeDiagnostics } from '#server/domain/observability/diagnostics-retention'
import { inScope } from '#server/domain/observability/ingest'
import { createMemoryBackplane } from '#server/realtime/memory-backplane'
import { createMemoryPresence } from '#server/realtime/memory-presence'
import { createPortalHub, type PortalHub } from '#server/realtime/portal-hub'
import { blobStoreFor } from '#server/storage/blob-stores'
import type {
  AnalysisSeries,
  AnalysisSummary,
  DiagnosticAttemptsPage,
  DiagnosticCheck,
  DiagnosticRun,
  DiagnosticRunDetail,
  DiagnosticRunsPage,
} from '~/lib/admin/diagnostics'
import { expectProblem } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { createTestBucket, type TestBucket } from '#tests/helpers/s3'
import { body, organisation } from '#tests/helpers/reporting-a'

/**
 * Diagnostics (docs/observability.md "Diagnostics"), through HTTP: real runs of the real checks
 * (storage broken for real: by a file where the file store keeps its temporary files, or by
 * deleting the S3 store's bucket, one of this file's own), their
 * attempts and failure tracking, the instance's scheduled run, paging, filters, the analysis from
 * known rows, other organisations and non-administrators.
 */

let t: TestBackend
let hub: PortalHub
let mailDir: string
let bucket: TestBucket | undefined

beforeAll(async () => {
  mailDir = `/tmp/sp-diagnostics-test-${process.pid}`
  const s3Env = inject('s3Env')
  if (s3Env.BLOB_STORE) bucket = await createTestBucket(s3Env, `diagnostics-${process.pid}-${Date.now().toString(36)}`)
  t = await createTestBackend({ now: '2026-11-25T06:00:00.000Z', env: { MAIL_FILE_DIR: mailDir, ...bucket?.env } })
  hub = createPortalHub({
    config: t.config,
    db: t.db,
    logger: createLogger('silent'),
    now: t.now,
    backplane: createMemoryBackplane(),
    presence: createMemoryPresence({ ttlMs: 30_000 }),
  })
  registerHubProbe(t.db, { stats: () => hub.hub.stats(), backplane: 'memory' })
})

afterAll(async () => {
  await hub?.drain()
  await t?.close()
  await rm(mailDir, { recursive: true, force: true })
})

const HOUR = 60 * 60_000
const checkOf = (run: DiagnosticRun, check: DiagnosticCheck) => run.checks.find((c) => c.check === check)

/** Breaks the blob store for real, so every write fails: no bucket, or a file where it makes its temporary files. */
async function breakStorage(): Promise<() => Promise<void>> {
  const own = bucket
  if (own) {
    await own.remove()
    return () => own.restore()
  }
  const tmp = path.join(t.config.dataDir, 'blobs', 'tmp')
  await rm(tmp, { recursive: true, force: true })
  await mkdir(path.dirname(tmp), { recursive: true })
  await writeFile(tmp, 'not a folder')
  return () => rm(tmp, { force: true })
}

test('a run checks everything; broken storage is tried three times and tracked, a good run ends the row; the run and its attempts read back', async () => {
  const { admin } = await organisation(t)

  const first = await body<DiagnosticRun>(await admin.c.post('/api/diagnostics'), 201)
  expect(first.scope).toBe('organisation')
  expect(first.trigger).toBe('manual')
  expect(first.requestedBy?.id).toBe(admin.user.id)
  expect(first.checks.map((c) => c.check)).toEqual(['database', 'mail', 'storage', 'redis', 'hub', 'disk', 'clock'])
  expect(checkOf(first, 'database')).toMatchObject({ outcome: 'passed', attempts: 1 })
  expect(checkOf(first, 'storage')).toMatchObject({ outcome: 'passed', attempts: 1, message: 'A test file was written, read back and removed.' })
  expect(checkOf(first, 'mail')?.message).toMatch(/written as files into a folder on the server/)
  expect(checkOf(first, 'redis')).toMatchObject({ outcome: 'skipped' })
  expect(checkOf(first, 'hub')).toMatchObject({ outcome: 'passed' })
  expect(checkOf(first, 'hub')?.message).toMatch(/0 connections/)
  expect(checkOf(first, 'clock')).toMatchObject({ outcome: 'passed' })
  expect(first.outcome).toBe(checkOf(first, 'disk')?.outcome === 'failed' ? 'failed' : 'passed')
  expect(first.finishedAtUtc).not.toBeNull()

  const repair = await breakStorage()
  try {
    t.now.advance(5 * 60_000)
    const failed = await body<DiagnosticRun>(await admin.c.post('/api/diagnostics'), 201)
    expect(failed.outcome).toBe('failed')
    expect(checkOf(failed, 'storage')).toMatchObject({ outcome: 'failed', attempts: 3 })
    expect(checkOf(failed, 'storage')?.message).toMatch(/^The storage test could not write a file\./)

    const detail = await body<DiagnosticRunDetail>(await admin.c.get(`/api/diagnostics/${failed.id}`))
    const storage = detail.attempts.filter((a) => a.check === 'storage')
    expect(storage.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'failed'],
    ])
    expect(storage[0]?.detail).toMatchObject({ error: expect.any(String) })
    // The back-off between tries shows in when each started.
    expect(Date.parse(storage[2]!.startedAtUtc) - Date.parse(storage[0]!.startedAtUtc)).toBeGreaterThanOrEqual(1000)
    expect(detail.attempts.filter((a) => a.check === 'database')).toHaveLength(1)

    let page = await body<DiagnosticRunsPage>(await admin.c.get('/api/diagnostics?scope=organisation'))
    const tracking = page.tracking.organisation.find((s) => s.check === 'storage')
    expect(tracking).toMatchObject({ failureCount: 1, consecutiveFailures: 1, lastOutcome: 'failed', lastSuccessUtc: first.finishedAtUtc })
    expect(tracking?.lastError).toMatch(/could not write a file/)
    expect(tracking?.lastFailureUtc).toBe(failed.finishedAtUtc)

    t.now.advance(5 * 60_000)
    await body<DiagnosticRun>(await admin.c.post('/api/diagnostics'), 201)
    page = await body<DiagnosticRunsPage>(await admin.c.get('/api/diagnostics?scope=organisation'))
    expect(page.tracking.organisation.find((s) => s.check === 'storage')).toMatchObject({ failureCount: 2, consecutiveFailures: 2 })
  } finally {
    await repair()
  }

  t.now.advance(5 * 60_000)
  const good = await body<DiagnosticRun>(await admin.c.post('/api/diagnostics'), 201)
  expect(checkOf(good, 'storage')).toMatchObject({ outcome: 'passed', attempts: 1 })
  const page = await body<DiagnosticRunsPage>(await admin.c.get('/api/diagnostics?scope=organisation'))
  expect(page.items.map((r) => r.id)).toHaveLength(4)
  expect(page.items[0]?.id).toBe(good.id)
  const storage = page.tracking.organisation.find((s) => s.check === 'storage')
  expect(storage).toMatchObject({ failureCount: 2, consecutiveFailures: 0, lastOutcome: 'passed', lastSuccessUtc: good.finishedAtUtc })
  expect(page.tracking.organisation.find((s) => s.check === 'database')).toMatchObject({ failureCount: 0, consecutiveFailures: 0 })
  t.now.reset()
})

test('one manual run at a time per organisation, and at most 20 an hour: 429 with retryAfterSeconds', async () => {
  const { admin, tenant } = await organisation(t)
  const [a, b] = await Promise.all([admin.c.post('/api/diagnostics'), admin.c.post('/api/diagnostics')])
  const statuses = [a.status, b.status].sort()
  expect(statuses).toEqual([201, 429])
  const refused = a.status === 429 ? a : b
  const problem = await expectProblem(refused, 429, 'KR_THROTTLED')
  expect(problem.retryAfterSeconds).toBeGreaterThan(0)

  await withTenant(t.db, tenant.id, (tx) =>
    tx.insert(diagnosticRuns).values(
      Array.from({ length: 19 }, (_, i) => ({ tenantId: tenant.id, trigger: 'manual', outcome: 'passed', startedAt: new Date(t.now().getTime() - i * 60_000), finishedAt: t.now() })),
    ),
  )
  const limited = await expectProblem(await admin.c.post('/api/diagnostics'), 429, 'KR_THROTTLED')
  expect(limited.detail).toMatch(/20 times in the last hour/)
  expect(limited.retryAfterSeconds).toBeGreaterThan(0)
})

test('the instance’s scheduled run: once per interval across instances, readable by every administrator, merged into each list', async () => {
  const one = await organisation(t)
  const two = await organisation(t)
  // Ahead of every other run of this file, on a clock of its own (the sessions' clock stays).
  const at = new Date(t.now().getTime() + 10 * HOUR)
  const interval = 15 * 60_000
  const claimed = await claimScheduledRun(t.db, at, interval)
  expect(claimed).toBeDefined()
  // A second instance ticking within the interval finds it done.
  expect(await claimScheduledRun(t.db, new Date(at.getTime() + 60_000), interval)).toBeUndefined()
  await completeRun({ db: t.db, config: t.config, store: blobStoreFor(t.config) }, claimed!, null, () => at)

  for (const { admin } of [one, two]) {
    const detail = await body<DiagnosticRunDetail>(await admin.c.get(`/api/diagnostics/${claimed!.id}`))
    expect(detail.run).toMatchObject({ id: claimed!.id, scope: 'instance', trigger: 'schedule', requestedBy: null })
    expect(detail.attempts.length).toBeGreaterThanOrEqual(7)
    const page = await body<DiagnosticRunsPage>(await admin.c.get('/api/diagnostics'))
    expect(page.items[0]?.id).toBe(claimed!.id)
    expect(page.tracking.instance.find((s) => s.check === 'database')).toMatchObject({ lastOutcome: 'passed', consecutiveFailures: 0 })
    const own = await body<DiagnosticRunsPage>(await admin.c.get('/api/diagnostics?scope=organisation'))
    expect(own.items.some((r) => r.id === claimed!.id)).toBe(false)
  }
  // The next interval is due again.
  expect(await claimScheduledRun(t.db, new Date(at.getTime() + interval), interval)).toBeDefined()
})

test('another organisation’s run is 404, a member who is not an administrator 403, on every call', async () => {
  const one = await organisation(t)
  const two = await organisation(t)
  const run = await body<DiagnosticRun>(await one.admin.c.post('/api/diagnostics'), 201)
  await expectProblem(await two.admin.c.get(`/api/diagnostics/${run.id}`), 404, 'KR_NOT_FOUND')
  await expectProblem(await two.admin.c.get('/api/diagnostics/not-a-run'), 404, 'KR_NOT_FOUND')
  const theirs = await body<DiagnosticAttemptsPage>(await two.admin.c.get(`/api/admin/diagnostics-attempts?runId=${run.id}`))
  expect(theirs.items).toEqual([])
  const listed = await body<DiagnosticRunsPage>(await two.admin.c.get('/api/diagnostics?scope=organisation'))
  expect(listed.items.some((r) => r.id === run.id)).toBe(false)

  for (const member of [one.writer, one.reader]) {
    await expectProblem(await member.c.get('/api/diagnostics'), 403)
    await expectProblem(await member.c.post('/api/diagnostics'), 403)
    await expectProblem(await member.c.get(`/api/diagnostics/${run.id}`), 403)
    await expectProblem(await member.c.get('/api/admin/diagnostics-attempts'), 403)
    await expectProblem(await member.c.get('/api/admin/diagnostics/analysis'), 403)
    await expectProblem(await member.c.get('/api/admin/diagnostics/analysis/series'), 403)
  }
})

/** Rows as runs would leave them, for figures known in advance. */
async function insertRun(tenantId: string | null, startedAt: Date, attempts: Array<{ check: DiagnosticCheck; outcome: string; durationMs: number; attempt?: number; message?: string; at?: Date }>) {
  return inScope(t.db, tenantId, async (tx) => {
    const failed = attempts.some((a) => a.outcome === 'failed')
    const [run] = await tx
      .insert(diagnosticRuns)
      .values({ tenantId, trigger: tenantId ? 'manual' : 'schedule', outcome: failed ? 'failed' : 'passed', startedAt, finishedAt: startedAt })
      .returning({ id: diagnosticRuns.id })
    if (attempts.length > 0) {
      await tx.insert(diagnosticAttempts).values(
        attempts.map((a) => ({
          tenantId,
          runId: run!.id,
          check: a.check,
          attempt: a.attempt ?? 1,
          startedAt: a.at ?? startedAt,
          durationMs: a.durationMs,
          outcome: a.outcome,
          message: a.message ?? `${a.check} ${a.outcome}`,
        })),
      )
    }
    return run!.id
  })
}

test('runs page newest first, 50 by default with an after cursor; filters by scope and outcome; bad parameters are 400', async () => {
  const { admin, tenant } = await organisation(t)
  const base = t.now().getTime() - 100 * HOUR
  const ids: string[] = []
  for (let i = 0; i < 53; i++) ids.push(await insertRun(tenant.id, new Date(base + i * 60_000), [{ check: 'database', outcome: i % 5 === 0 ? 'failed' : 'passed', durationMs: 5 }]))

  const first = await body<DiagnosticRunsPage>(await admin.c.get('/api/diagnostics?scope=organisation'))
  expect(first.items).toHaveLength(50)
  expect(first.items[0]?.id).toBe(ids[52])
  expect(first.items[0]?.checks).toEqual([{ check: 'database', outcome: 'passed', attempts: 1, durationMs: 5, message: 'database passed' }])
  expect(first.nextCursor).toBeTruthy()
  const second = await body<DiagnosticRunsPage>(await admin.c.get(`/api/diagnostics?scope=organisation&after=${first.nextCursor}`))
  expect(second.items.map((r) => r.id)).toEqual([ids[2], ids[1], ids[0]])
  expect(second.nextCursor).toBeNull()

  const failed = await body<DiagnosticRunsPage>(await admin.c.get('/api/diagnostics?scope=organisation&outcome=failed&limit=5'))
  expect(failed.items.map((r) => r.id)).toEqual([ids[50], ids[45], ids[40], ids[35], ids[30]])
  expect(failed.items.every((r) => r.outcome === 'failed')).toBe(true)

  // Without a scope the instance's runs are merged in by time.
  const instanceRun = await insertRun(null, new Date(base + 10.5 * 60_000), [])
  const merged = await body<DiagnosticRunsPage>(await admin.c.get(`/api/diagnostics?after=${first.nextCursor}&limit=100`))
  expect(merged.items.map((r) => r.id).slice(0, 3)).toEqual([ids[2], ids[1], ids[0]])
  const around = await body<DiagnosticRunsPage>(await admin.c.get('/api/diagnostics?limit=200'))
  const order = around.items.map((r) => r.id)
  expect(order.indexOf(instanceRun)).toBe(order.indexOf(ids[10]!) - 1)
  expect(around.items.find((r) => r.id === instanceRun)?.scope).toBe('instance')

  for (const query of ['limit=0', 'limit=201', 'limit=x', 'outcome=bogus', 'scope=everyone', 'after=garbage']) {
    await expectProblem(await admin.c.get(`/api/diagnostics?${query}`), 400, 'KR_VALIDATION')
  }
})

test('attempts: filters by check, outcome, period and run, newest first with paging; bad filters are 400', async () => {
  const { admin, tenant } = await organisation(t)
  const at = new Date('2026-11-20T10:00:00.000Z')
  const runA = await insertRun(tenant.id, at, [
    { check: 'storage', outcome: 'failed', durationMs: 40, attempt: 1, at: new Date(at.getTime() + 1000) },
    { check: 'storage', outcome: 'failed', durationMs: 41, attempt: 2, at: new Date(at.getTime() + 2000) },
    { check: 'storage', outcome: 'passed', durationMs: 42, attempt: 3, at: new Date(at.getTime() + 3000) },
    { check: 'database', outcome: 'passed', durationMs: 3, at: new Date(at.getTime() + 500) },
  ])
  const runB = await insertRun(tenant.id, new Date('2026-11-22T10:00:00.000Z'), [{ check: 'storage', outcome: 'failed', durationMs: 50 }])

  const q = (query: string) => admin.c.get(`/api/admin/diagnostics-attempts?scope=organisation&${query}`)
  const storage = await body<DiagnosticAttemptsPage>(await q('check=storage'))
  expect(storage.items.map((a) => [a.runId, a.attempt])).toEqual([
    [runB, 1],
    [runA, 3],
    [runA, 2],
    [runA, 1],
  ])
  const failedOnly = await body<DiagnosticAttemptsPage>(await q('check=storage&outcome=failed&until=2026-11-21'))
  expect(failedOnly.items.map((a) => a.attempt)).toEqual([2, 1])
  const since = await body<DiagnosticAttemptsPage>(await q('since=2026-11-22'))
  expect(since.items.map((a) => a.runId)).toEqual([runB])
  const ofRun = await body<DiagnosticAttemptsPage>(await q(`runId=${runA}&limit=2`))
  expect(ofRun.items.map((a) => [a.check, a.attempt])).toEqual([
    ['storage', 3],
    ['storage', 2],
  ])
  const rest = await body<DiagnosticAttemptsPage>(await q(`runId=${runA}&limit=2&after=${ofRun.nextCursor}`))
  expect(rest.items.map((a) => [a.check, a.attempt])).toEqual([
    ['storage', 1],
    ['database', 1],
  ])
  expect(rest.nextCursor).toBeNull()

  for (const query of ['check=nope', 'outcome=maybe', 'since=yesterday', 'until=2026-13-01', 'runId=42', 'since=2026-11-22&until=2026-11-21', 'limit=0']) {
    await expectProblem(await q(query), 400, 'KR_VALIDATION')
  }
})

test('analysis: the summary and the hourly series from known attempts; the window and parameters are checked', async () => {
  const { admin, tenant } = await organisation(t)
  const now = t.now().getTime()
  const within = (hoursAgo: number) => new Date(now - hoursAgo * HOUR)
  // database: 10, 20, 30, 40 passed and 100 failed within the day; one 30 hours ago (outside).
  await insertRun(tenant.id, within(5.5), [
    { check: 'database', outcome: 'passed', durationMs: 10 },
    { check: 'redis', outcome: 'skipped', durationMs: 0 },
  ])
  await insertRun(tenant.id, within(5.25), [{ check: 'database', outcome: 'passed', durationMs: 20 }])
  await insertRun(tenant.id, within(2.5), [
    { check: 'database', outcome: 'failed', durationMs: 100, message: 'The database did not answer.' },
    { check: 'database', outcome: 'passed', durationMs: 30, attempt: 2, at: new Date(within(2.5).getTime() + 1000) },
  ])
  await insertRun(tenant.id, within(1.5), [{ check: 'database', outcome: 'passed', durationMs: 40 }])
  await insertRun(tenant.id, within(30), [{ check: 'database', outcome: 'failed', durationMs: 999 }])

  const summary = await body<AnalysisSummary>(await admin.c.get('/api/admin/diagnostics/analysis?scope=organisation'))
  expect(summary).toMatchObject({ hours: 24, scope: 'organisation', toUtc: t.now().toISOString() })
  const database = summary.checks.find((c) => c.check === 'database')
  expect(database).toEqual({
    check: 'database',
    attempts: 5,
    failures: 1,
    skipped: 0,
    failureRate: 0.2,
    p50LatencyMs: 30,
    p95LatencyMs: 88,
    maxLatencyMs: 100,
    lastFailureUtc: within(2.5).toISOString(),
    lastError: 'The database did not answer.',
    consecutiveFailures: 0,
  })
  expect(summary.checks.find((c) => c.check === 'redis')).toMatchObject({ attempts: 1, skipped: 1, failureRate: 0, p50LatencyMs: null })
  expect(summary.checks.find((c) => c.check === 'mail')).toMatchObject({ attempts: 0, failures: 0, p95LatencyMs: null })
  const wide = await body<AnalysisSummary>(await admin.c.get('/api/admin/diagnostics/analysis?scope=organisation&hours=48'))
  expect(wide.checks.find((c) => c.check === 'database')).toMatchObject({ attempts: 6, failures: 2, maxLatencyMs: 999 })

  const series = await body<AnalysisSeries>(await admin.c.get('/api/admin/diagnostics/analysis/series?scope=organisation&check=database&hours=24&bucket=hour'))
  expect(series.checks.map((c) => c.check)).toEqual(['database'])
  const points = series.checks[0]!.points
  expect(points).toHaveLength(25)
  expect(points[0]?.bucketStartUtc).toBe(within(24).toISOString())
  const hourOf = (hoursAgo: number) => points.find((p) => p.bucketStartUtc === new Date(Math.floor((now - hoursAgo * HOUR) / HOUR) * HOUR).toISOString())
  expect(hourOf(5.5)).toEqual({ bucketStartUtc: within(6).toISOString(), attempts: 2, failures: 0, meanLatencyMs: 15, p95LatencyMs: 20 })
  expect(hourOf(2.5)).toMatchObject({ attempts: 2, failures: 1, meanLatencyMs: 65, p95LatencyMs: 97 })
  expect(hourOf(1.5)).toMatchObject({ attempts: 1, failures: 0, meanLatencyMs: 40 })
  expect(hourOf(4)).toEqual({ bucketStartUtc: within(4).toISOString(), attempts: 0, failures: 0, meanLatencyMs: null, p95LatencyMs: null })

  const daily = await body<AnalysisSeries>(await admin.c.get('/api/admin/diagnostics/analysis/series?scope=organisation&hours=48&bucket=day'))
  expect(daily.checks).toHaveLength(7)
  const days = daily.checks.find((c) => c.check === 'database')!.points
  expect(days.map((p) => [p.bucketStartUtc, p.attempts, p.failures])).toEqual([
    ['2026-11-23T00:00:00.000Z', 0, 0],
    ['2026-11-24T00:00:00.000Z', 1, 1],
    ['2026-11-25T00:00:00.000Z', 5, 1],
  ])

  for (const query of ['hours=0', 'hours=721', 'hours=1.5', 'hours=abc', 'scope=all']) {
    await expectProblem(await admin.c.get(`/api/admin/diagnostics/analysis?${query}`), 400, 'KR_VALIDATION')
  }
  for (const query of ['bucket=week', 'check=nope', 'hours=-1']) {
    await expectProblem(await admin.c.get(`/api/admin/diagnostics/analysis/series?${query}`), 400, 'KR_VALIDATION')
  }
})

test('retention: runs and their attempts older than 90 days go, newer ones stay', async () => {
  const { tenant } = await organisation(t)
  const now = t.now()
  const old = await insertRun(tenant.id, new Date(now.getTime() - 91 * 24 * HOUR), [{ check: 'database', outcome: 'passed', durationMs: 1 }])
  const kept = await insertRun(tenant.id, new Date(now.getTime() - 89 * 24 * HOUR), [{ check: 'database', outcome: 'passed', durationMs: 1 }])
  const oldInstance = await insertRun(null, new Date(now.getTime() - 100 * 24 * HOUR), [{ check: 'disk', outcome: 'passed', durationMs: 1 }])
  const purged = await purgeDiagnostics(t.db, now)
  expect(purged.runs).toBeGreaterThanOrEqual(2)
  expect(purged.attempts).toBeGreaterThanOrEqual(2)
  const left = await withTenant(t.db, tenant.id, (tx) => tx.select({ id: diagnosticRuns.id }).from(diagnosticRuns))
  expect(left.map((r) => r.id)).toContain(kept)
  expect(left.map((r) => r.id)).not.toContain(old)
  const instance = await inScope(t.db, null, (tx) => tx.select({ id: diagnosticRuns.id }).from(diagnosticRuns))
  expect(instance.map((r) => r.id)).not.toContain(oldInstance)
})

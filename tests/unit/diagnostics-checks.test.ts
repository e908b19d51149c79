import { afterEach, expect, test, vi } from 'vitest'
import type { CheckDeps } from '#server/domain/observability/diagnostics-checks'
import { clockVerdict, diskVerdict } from '#server/domain/observability/diagnostics-checks'
import { finalAttempts, MAX_ATTEMPTS, runChecks, runOutcome } from '#server/domain/observability/diagnostics'
import { DIAGNOSTIC_CHECKS, type DiagnosticCheck } from '~/lib/admin/diagnostics'

/** The rules of a diagnostic run (docs/observability.md "Diagnostics"): retries, timeouts, outcome, thresholds. */

afterEach(() => {
  vi.useRealTimers()
})

const GB = 1024 ** 3
const noDeps = {} as CheckDeps

function everyCheck(verdict: (check: DiagnosticCheck) => () => Promise<{ outcome: 'passed' | 'failed' | 'skipped'; message: string }>) {
  return Object.fromEntries(DIAGNOSTIC_CHECKS.map((check) => [check, verdict(check)]))
}

test('a failed check is tried three times with the back-off between; a passing or skipped one once; the run fails on a last failed attempt', async () => {
  vi.useFakeTimers()
  const calls: Record<string, number> = {}
  const checks = everyCheck((check) => async () => {
    calls[check] = (calls[check] ?? 0) + 1
    if (check === 'storage') return { outcome: 'failed', message: 'no space' }
    if (check === 'redis') return { outcome: 'skipped', message: 'not configured' }
    // mail fails once, then passes
    if (check === 'mail' && calls[check] === 1) return { outcome: 'failed', message: 'refused' }
    return { outcome: 'passed', message: 'ok' }
  })
  const start = new Date('2026-11-25T06:00:00.000Z')
  const running = runChecks(noDeps, { tenantId: null }, start, { checks, backoffMs: [250, 1000], timeoutMs: 5000 })
  await vi.runAllTimersAsync()
  const attempts = await running
  expect(calls).toMatchObject({ storage: MAX_ATTEMPTS, mail: 2, redis: 1, database: 1 })
  const storage = attempts.filter((a) => a.check === 'storage')
  expect(storage.map((a) => a.attempt)).toEqual([1, 2, 3])
  expect(storage[1]!.startedAt.getTime() - storage[0]!.startedAt.getTime()).toBeGreaterThanOrEqual(250)
  expect(storage[2]!.startedAt.getTime() - storage[1]!.startedAt.getTime()).toBeGreaterThanOrEqual(1000)
  const last = finalAttempts(attempts)
  expect(last.get('mail')).toMatchObject({ attempt: 2, outcome: 'passed' })
  expect(last.get('redis')).toMatchObject({ attempt: 1, outcome: 'skipped' })
  expect(runOutcome(attempts)).toBe('failed')
  expect(runOutcome(attempts.filter((a) => a.check !== 'storage'))).toBe('passed')
})

test('a check that does not answer in time, or throws, is a failed attempt with a message', async () => {
  vi.useFakeTimers()
  const checks = everyCheck((check) =>
    check === 'mail'
      ? () => new Promise(() => undefined)
      : check === 'disk'
        ? async () => {
            throw Object.assign(new Error('statfs failed'), { code: 'EIO' })
          }
        : async () => ({ outcome: 'passed', message: 'ok' }),
  )
  const running = runChecks(noDeps, { tenantId: 't' }, new Date(0), { checks, backoffMs: [1, 1], timeoutMs: 3000 })
  await vi.runAllTimersAsync()
  const last = finalAttempts(await running)
  expect(last.get('mail')).toMatchObject({ attempt: 3, outcome: 'failed', message: 'The mail check did not finish within 3 s.' })
  expect(last.get('disk')).toMatchObject({ attempt: 3, outcome: 'failed', message: 'The disk space check could not run: statfs failed', detail: { error: 'EIO' } })
})

test('disk: failed below 1 GB or 5 % free, a warning below twice that, else passed', () => {
  expect(diskVerdict(0.5 * GB, 100 * GB, '/data').outcome).toBe('failed')
  expect(diskVerdict(4 * GB, 100 * GB, '/data').outcome).toBe('failed')
  const low = diskVerdict(8 * GB, 100 * GB, '/data')
  expect(low.outcome).toBe('passed')
  expect(low.message).toMatch(/^Space is getting low/)
  const fine = diskVerdict(50 * GB, 100 * GB, '/data')
  expect(fine).toMatchObject({ outcome: 'passed', detail: { freePercent: 50 } })
  expect(fine.message).toBe('50.0 GB (50.0 %) free of 100.0 GB at /data.')
})

test('clock: failed beyond 2 s apart either way', () => {
  expect(clockVerdict(1999, 3).outcome).toBe('passed')
  expect(clockVerdict(-2001, 3)).toMatchObject({ outcome: 'failed', detail: { skewMs: -2001 } })
  expect(clockVerdict(2500, 3).message).toMatch(/2500 ms ahead of/)
})

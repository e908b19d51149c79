import { afterEach, beforeEach, expect, test, vi } from 'vitest'
import { isOwnEcho, OWN_ECHO_WINDOW_MS, RevalidationScheduler } from '~/islands/realtime/revalidation-scheduler'

beforeEach(() => {
  vi.useFakeTimers()
})

afterEach(() => {
  vi.useRealTimers()
})

test('a burst of changes revalidates once, after the quiet period', () => {
  const revalidate = vi.fn()
  const scheduler = new RevalidationScheduler(revalidate, 300)
  scheduler.notify()
  vi.advanceTimersByTime(200)
  scheduler.notify()
  vi.advanceTimersByTime(200)
  scheduler.notify()
  vi.advanceTimersByTime(299)
  expect(revalidate).not.toHaveBeenCalled()
  vi.advanceTimersByTime(1)
  expect(revalidate).toHaveBeenCalledTimes(1)
  scheduler.notify()
  vi.advanceTimersByTime(300)
  expect(revalidate).toHaveBeenCalledTimes(2)
})

test('while the user navigates or submits it waits, then revalidates once right after', () => {
  const revalidate = vi.fn()
  const scheduler = new RevalidationScheduler(revalidate, 300)
  scheduler.setBusy(true)
  scheduler.notify()
  vi.advanceTimersByTime(1000)
  scheduler.notify()
  vi.advanceTimersByTime(1000)
  expect(revalidate).not.toHaveBeenCalled()
  scheduler.setBusy(false)
  expect(revalidate).toHaveBeenCalledTimes(1)
  // Nothing left over.
  scheduler.setBusy(true)
  scheduler.setBusy(false)
  vi.advanceTimersByTime(1000)
  expect(revalidate).toHaveBeenCalledTimes(1)
})

test('becoming idle with nothing due does not revalidate, and a disposed scheduler never does', () => {
  const revalidate = vi.fn()
  const scheduler = new RevalidationScheduler(revalidate, 300)
  scheduler.setBusy(false)
  scheduler.notify()
  scheduler.dispose()
  vi.advanceTimersByTime(1000)
  expect(revalidate).not.toHaveBeenCalled()
})

test("a change by the user right after this tab's submission is its echo; anyone else's, or a later one, is not", () => {
  const base = { changedByUserId: 'u-sam', ownUserId: 'u-sam', submitting: false, lastSubmissionEndedAt: 100_000 }
  expect(isOwnEcho({ ...base, submitting: true, now: 500_000 })).toBe(true)
  expect(isOwnEcho({ ...base, now: 100_000 + OWN_ECHO_WINDOW_MS - 1 })).toBe(true)
  expect(isOwnEcho({ ...base, now: 100_000 + OWN_ECHO_WINDOW_MS })).toBe(false)
  expect(isOwnEcho({ ...base, changedByUserId: 'u-alex', now: 100_001 })).toBe(false)
  expect(isOwnEcho({ ...base, changedByUserId: undefined, now: 100_001 })).toBe(false)
  expect(isOwnEcho({ ...base, ownUserId: undefined, changedByUserId: undefined, now: 100_001 })).toBe(false)
})

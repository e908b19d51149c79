import { expect, test } from 'vitest'
import { createApiError } from '~/lib/api/errors'
import { isRetryable, parseRetryAfter, RETRY_AFTER_CEILING_MS, retryDelayMs } from '~/lib/api/retry'

test('network errors and 429 are retryable; timeouts and other statuses are not', () => {
  expect(isRetryable(createApiError({ kind: 'FETCH_ERROR' }))).toBe(true)
  expect(isRetryable(createApiError({ kind: 429, status: 429 }))).toBe(true)
  expect(isRetryable(createApiError({ kind: 'TIMEOUT_ERROR' }))).toBe(false)
  expect(isRetryable(createApiError({ kind: 'PARSING_ERROR', status: 200 }))).toBe(false)
  expect(isRetryable(createApiError({ kind: 500, status: 500 }))).toBe(false)
  expect(isRetryable(createApiError({ kind: 503, status: 503 }))).toBe(false)
})

test('the back-off is 300, 1000, 3000 ms, then no more retries', () => {
  expect([0, 1, 2, 3].map((retry) => retryDelayMs(retry))).toEqual([300, 1000, 3000, undefined])
})

test('a longer Retry-After wins up to the ceiling; a shorter one does not shorten the back-off', () => {
  expect(retryDelayMs(0, 2000)).toBe(2000)
  expect(retryDelayMs(0, 100)).toBe(300)
  expect(retryDelayMs(2, RETRY_AFTER_CEILING_MS)).toBe(RETRY_AFTER_CEILING_MS)
  expect(retryDelayMs(0, RETRY_AFTER_CEILING_MS + 1)).toBeUndefined()
  expect(retryDelayMs(3, 100)).toBeUndefined()
})

test('Retry-After reads delta-seconds and HTTP dates', () => {
  const now = Date.parse('2025-01-01T00:00:00Z')
  expect(parseRetryAfter('2', now)).toBe(2000)
  expect(parseRetryAfter(' 0 ', now)).toBe(0)
  expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:05 GMT', now)).toBe(5000)
  expect(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now)).toBe(0)
  expect(parseRetryAfter('soon', now)).toBeUndefined()
  expect(parseRetryAfter(null, now)).toBeUndefined()
})

import { RETRY_DELAYS_MS } from '~/lib/constants'
import type { ApiError } from './types'

/**
 * The longest Retry-After the client waits for. A longer wait would hold a page load or a form
 * submission for longer than anyone waits, so past it the 429 goes back to the screen instead.
 */
export const RETRY_AFTER_CEILING_MS = 10_000

/** Spec §8: network errors and 429 are retried; timeouts and every other status are not. */
export function isRetryable(error: ApiError): boolean {
  return error.kind === 'FETCH_ERROR' || error.status === 429
}

/**
 * The wait before retry number `retry` (0-based), or undefined when the retries are used up.
 * Spec §9 gives 300, 1000, 3000 ms. For a 429 the server's Retry-After (header or problem
 * retryAfterSeconds) wins when it asks for longer, since retrying sooner only earns another 429;
 * when it asks for more than RETRY_AFTER_CEILING_MS the client stops retrying.
 */
export function retryDelayMs(retry: number, retryAfterMs?: number): number | undefined {
  const delay = RETRY_DELAYS_MS[retry]
  if (delay === undefined) return undefined
  if (retryAfterMs === undefined || retryAfterMs <= delay) return delay
  return retryAfterMs > RETRY_AFTER_CEILING_MS ? undefined : retryAfterMs
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (!value) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const date = Date.parse(trimmed)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - now)
}

import { REALTIME_RECONNECT_DELAYS_MS } from '~/lib/constants'
import type { EndReason } from './status'

/** What @microsoft/signalr's retry policy is given (its RetryContext, without importing the library). */
export type RetryContext = { previousRetryCount: number; elapsedMilliseconds: number; retryReason: Error }

/**
 * Spec §9: reconnect after 0, 2, 5 and 10 s, then give up (the status becomes `disconnected`). A
 * 401 means the session has ended: retrying cannot help, so stop at once.
 */
export function nextRetryDelay(context: RetryContext, delays: readonly number[] = REALTIME_RECONNECT_DELAYS_MS): number | null {
  if (isUnauthorized(context.retryReason)) return null
  return delays[context.previousRetryCount] ?? null
}

/**
 * The client reports HTTP failures as text ("…: Status code '401'"), sometimes as an HttpError
 * with `statusCode`; both are read.
 */
export function httpStatusOf(error: unknown): number | undefined {
  if (typeof error === 'object' && error !== null && 'statusCode' in error && typeof error.statusCode === 'number') return error.statusCode
  const match = /Status code '(\d{3})'/.exec(error instanceof Error ? error.message : String(error))
  return match?.[1] ? Number(match[1]) : undefined
}

export function isUnauthorized(error: unknown): boolean {
  return httpStatusOf(error) === 401
}

/** Why a connection ended (onclose's error) or did not start (start()'s rejection). */
export function endReasonOf(error: unknown): EndReason {
  const status = httpStatusOf(error)
  if (status === 401) return 'signed-out'
  // 403 (origin refused), 404 (no hub here): the same again would be refused again.
  if (status !== undefined && status >= 400 && status < 500) return 'refused'
  const message = error instanceof Error ? error.message : String(error ?? '')
  // The server sent Close without allowReconnect: the client stops for good.
  if (message.startsWith('Server returned an error on close')) return 'refused'
  return 'dropped'
}

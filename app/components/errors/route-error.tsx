import { isRouteErrorResponse } from 'react-router'

/** Spec §2 "Shell details": the alert's fallback when the route error says nothing usable. */
export const FALLBACK_ERROR_MESSAGE = 'Something went wrong'
/** Spec §2 "Shell details": the other variant of the generic error screen. */
export const REFRESH_ERROR_MESSAGE = 'Something went wrong. Please refresh the page or try again later.'

/** The route error's status text or message, else "Something went wrong" (spec §2). */
export function routeErrorMessage(error: unknown): string {
  if (isRouteErrorResponse(error)) return error.statusText || FALLBACK_ERROR_MESSAGE
  if (error instanceof Error) return error.message || FALLBACK_ERROR_MESSAGE
  return FALLBACK_ERROR_MESSAGE
}

/** The HTTP status of a thrown response, if the error is one. */
export function routeErrorStatus(error: unknown): number | undefined {
  return isRouteErrorResponse(error) ? error.status : undefined
}

/** The correlation id of a thrown problem-details response (spec §3 "Error shape"), if any. */
export function routeErrorCorrelationId(error: unknown): string | undefined {
  if (!isRouteErrorResponse(error)) return undefined
  const data: unknown = error.data
  if (typeof data !== 'object' || data === null || !('correlationId' in data)) return undefined
  return typeof data.correlationId === 'string' ? data.correlationId : undefined
}

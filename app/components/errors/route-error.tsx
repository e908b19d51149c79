import { useEffect } from 'react'
import { isRouteErrorResponse } from 'react-router'
import { reportError, type ErrorSource } from '~/lib/telemetry'

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

/** A route module (lazily loaded page code, spec §2) that could not be fetched: the browsers' wordings. */
const CHUNK_LOAD = /dynamically imported module|Importing a module script failed|error loading dynamically imported module|Failed to fetch/i

/**
 * What an error boundary reports to the frontend errors (issue 15): a render error ('boundary'); a
 * route load that failed ('route-load': its code could not be fetched, or its data answered 5xx).
 * Answers of 4xx (not found, forbidden) are the app working as meant and are not reported.
 */
export function routeErrorReport(error: unknown): { error: unknown; source: ErrorSource } | null {
  if (isRouteErrorResponse(error)) {
    if (error.status < 500) return null
    return { error: new Error(`Route load failed with status ${error.status}`), source: 'route-load' }
  }
  if (error instanceof Error && CHUNK_LOAD.test(error.message)) return { error, source: 'route-load' }
  return { error, source: 'boundary' }
}

/** Reports the boundary's error once it shows in the browser (app/lib/telemetry.ts). */
export function useReportRouteError(error: unknown): void {
  useEffect(() => {
    const report = routeErrorReport(error)
    if (report) reportError(report.error, report.source)
  }, [error])
}

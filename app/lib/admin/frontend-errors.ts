import type { z } from 'zod'
import type {
  FrontendErrorDetailSchema,
  FrontendErrorGroupSchema,
  FrontendErrorListSchema,
  FrontendErrorOccurrenceSchema,
  StackFrameSchema,
} from '~/lib/schemas/admin-frontend-errors'

/** Administration › Frontend errors (issue 15): the API's shapes and the pages' filters in the URL. */

export type FrontendErrorGroup = z.output<typeof FrontendErrorGroupSchema>
export type FrontendErrorList = z.output<typeof FrontendErrorListSchema>
export type FrontendErrorDetail = z.output<typeof FrontendErrorDetailSchema>
export type FrontendErrorOccurrence = z.output<typeof FrontendErrorOccurrenceSchema>
export type StackFrame = z.output<typeof StackFrameSchema>

export const FRONTEND_ERROR_FILTER_NAMES = ['q', 'since', 'visitor'] as const
export type FrontendErrorFilterName = (typeof FRONTEND_ERROR_FILTER_NAMES)[number]
/** Each filter as typed ('' when not set). */
export type FrontendErrorFilters = Record<FrontendErrorFilterName, string>

export function frontendErrorFiltersOf(params: URLSearchParams): FrontendErrorFilters {
  return Object.fromEntries(FRONTEND_ERROR_FILTER_NAMES.map((name) => [name, (params.get(name) ?? '').trim()])) as FrontendErrorFilters
}

/** The page number of the URL (1 when absent or not a number). */
export function pageOf(params: URLSearchParams): number {
  const page = Number(params.get('page'))
  return Number.isInteger(page) && page >= 1 && page <= 1000 ? page : 1
}

/** The filters that are set, plus `extra`, as a query string. */
export function frontendErrorQuery(filters: Partial<FrontendErrorFilters>, extra: Record<string, string> = {}): URLSearchParams {
  const query = new URLSearchParams()
  for (const name of FRONTEND_ERROR_FILTER_NAMES) {
    const value = filters[name]
    if (value) query.set(name, value)
  }
  for (const [name, value] of Object.entries(extra)) query.set(name, value)
  return query
}

export function frontendErrorsHref(filters: Partial<FrontendErrorFilters>, page = 1): string {
  const query = frontendErrorQuery(filters, page > 1 ? { page: String(page) } : {}).toString()
  return `/admin/frontend-errors${query ? `?${query}` : ''}`
}

export function hasFrontendErrorFilters(filters: FrontendErrorFilters): boolean {
  return FRONTEND_ERROR_FILTER_NAMES.some((name) => filters[name] !== '')
}

const FINGERPRINT = /^[0-9a-f]{64}$/

export function isFingerprint(value: string | undefined): value is string {
  return value !== undefined && FINGERPRINT.test(value)
}

/** A frame as one line: `saveReport (app/lib/report-save.ts:7:3)`, or the browser's text when unmapped. */
export function frameLabel(frame: StackFrame): string {
  if (!frame.mapped) return frame.text
  const at = `${frame.file}:${frame.line}:${frame.column}`
  return frame.functionName ? `${frame.functionName} (${at})` : at
}

import { noticeOf } from '~/components/reporting/report-action'
import { FRONTEND_ERROR_FILTER_NAMES, frontendErrorFiltersOf, frontendErrorQuery, pageOf } from '~/lib/admin/frontend-errors'
import type { ApiClient } from '~/lib/api/types'

/**
 * /admin/frontend-errors: a page of the organisation's error groups with the URL's filters.
 * Whatever fails, the page still draws: refused filters come back next to their fields, anything
 * else as a banner.
 */
export async function loadFrontendErrors(api: ApiClient, request: Request) {
  const params = new URL(request.url).searchParams
  const filters = frontendErrorFiltersOf(params)
  const page = pageOf(params)
  const result = await api.GET('/api/admin/frontend-errors', { query: new URLSearchParams(frontendErrorQuery(filters, page > 1 ? { page: String(page) } : {})) })
  const refused = !result.ok && result.error.status === 400 ? (result.error.problem?.errors ?? {}) : {}
  const fieldErrors = Object.fromEntries(Object.entries(refused).filter(([name]) => (FRONTEND_ERROR_FILTER_NAMES as readonly string[]).includes(name)))
  return {
    filters,
    page,
    list: result.ok ? result.data : null,
    fieldErrors,
    notice: result.ok || Object.keys(fieldErrors).length > 0 ? null : noticeOf(result.error),
  }
}

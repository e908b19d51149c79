import { noticeOf } from '~/components/reporting/report-action'
import { CSP_PAGE_SIZE, cspReportsApiQuery, type CspReportsQuery } from '~/lib/admin/csp-reports'
import type { ApiClient } from '~/lib/api/types'

/**
 * /admin/security/csp-reports: spec §2's one-row sample on entry (the newest group, whatever the
 * filters; its failure is ignored), the page of groups with the URL's filters, and the reports of
 * the group the URL opens. Whatever fails, the page still draws.
 */
export async function loadCspReports(api: ApiClient, query: CspReportsQuery) {
  const params = cspReportsApiQuery(query, query.page)
  params.set('limit', String(CSP_PAGE_SIZE))
  const [sample, list, reports] = await Promise.all([
    api.GET('/api/admin/security/csp-reports', { query: { limit: 1 } }),
    api.GET('/api/admin/security/csp-reports', { query: params }),
    query.group ? api.GET('/api/admin/security/csp-reports/groups/{group}', { path: { group: query.group } }) : Promise.resolve(null),
  ])
  const fieldErrors = !list.ok && list.error.status === 400 ? (list.error.problem?.errors ?? {}) : {}
  return {
    latest: sample.ok ? (sample.data.items[0] ?? null) : null,
    list: list.ok ? list.data : null,
    fieldErrors,
    notice: list.ok || Object.keys(fieldErrors).length > 0 ? null : noticeOf(list.error),
    reports: reports?.ok ? reports.data : null,
    reportsMissing: reports !== null && !reports.ok,
  }
}

import { noticeOf } from '~/components/reporting/report-action'
import { LOGS_PAGE_FIELDS, logsPageQuery, sinceForApi, type LogTailResponse } from '~/lib/admin/logs'
import type { ApiClient } from '~/lib/api/types'

/**
 * /admin/logs: the newest lines of the organisation with the filters of the address. The tail is
 * also the page's one-row sample on entry (spec §2): whatever fails, the page still draws (an
 * alert says why), and filters the API refused come back next to their fields.
 */
export async function loadLogsPage(api: ApiClient, request: Request) {
  const query = logsPageQuery(new URL(request.url))
  const drawnAtMs = Date.now()
  const params = new URLSearchParams()
  if (query.unit) params.set('unit', query.unit)
  if (query.level) params.set('level', query.level)
  const since = sinceForApi(query.since, drawnAtMs)
  if (since) params.set('since', since)
  if (query.query) params.set('query', query.query)
  if (query.lines) params.set('lines', query.lines)
  const tail = await api.get<LogTailResponse>(`/api/admin/logs/tail?${params.toString()}`)
  const refused = !tail.ok && tail.error.status === 400 ? (tail.error.problem?.errors ?? {}) : {}
  const fieldErrors = Object.fromEntries(Object.entries(refused).filter(([name]) => (LOGS_PAGE_FIELDS as readonly string[]).includes(name)))
  return {
    query,
    drawnAtMs,
    tail: tail.ok ? tail.data : null,
    fieldErrors,
    notice: tail.ok || Object.keys(fieldErrors).length > 0 ? null : noticeOf(tail.error),
  }
}

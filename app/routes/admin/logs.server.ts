import { noticeOf } from '~/components/reporting/report-action'
import { LOG_PAGE_DEFAULT_LINES, LOGS_PAGE_FIELDS, logsPageQuery, momentForApi, sinceForApi } from '~/lib/admin/logs'
import type { ApiClient } from '~/lib/api/types'
import type { FrontendErrorGroup } from '~/lib/admin/frontend-errors'

/** A visitor id (kr-vis) or a correlation id as a search term: letters, digits and dashes. */
const ID_LIKE = /^[A-Za-z0-9-]{8,200}$/
const VISITORS_JOINED = 3

export type VisitorErrors = { visitorId: string; groups: FrontendErrorGroup[]; hasMore: boolean }

/**
 * /admin/logs: one page of the lines, newest first (the API answers oldest first; the page turns
 * them round), going back from `before` when the address has it, with the filters of the address
 * (`from`/`to` typed in UTC, sent as UTC ISO date-times). The tail is
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
  const from = momentForApi(query.from, 'from')
  if (from) params.set('from', from)
  const to = momentForApi(query.to, 'to')
  if (to) params.set('to', to)
  if (query.query) params.set('query', query.query)
  params.set('lines', query.lines || String(LOG_PAGE_DEFAULT_LINES))
  if (query.before) params.set('before', query.before)
  const tail = await api.GET('/api/admin/logs/tail', { query: params })
  const refused = !tail.ok && tail.error.status === 400 ? (tail.error.problem?.errors ?? {}) : {}
  // A refused `before` (a hand-edited address) is no field's: the page says so in its alert.
  const fieldErrors = Object.fromEntries(Object.entries(refused).filter(([name]) => (LOGS_PAGE_FIELDS as readonly string[]).includes(name)))
  const lines = tail.ok ? tail.data.lines : []
  return {
    query,
    drawnAtMs,
    visitorErrors: query.query ? await visitorErrorsOf(api, query.query, lines) : [],
    tail: tail.ok ? tail.data : null,
    fieldErrors,
    notice: tail.ok || Object.keys(fieldErrors).length > 0 ? null : noticeOf(tail.error),
  }
}

/**
 * The correlation-id join (docs/observability.md "Finding one failure"): a searched id is a
 * request's correlation id (its lines name the visitor) or a visitor id itself; the frontend errors
 * of those visitors are shown beside the lines. A failure here only leaves that part out.
 */
async function visitorErrorsOf(api: ApiClient, search: string, lines: readonly { visitorId?: string | null }[]): Promise<VisitorErrors[]> {
  const ids = new Set<string>()
  for (const line of lines) if (line.visitorId) ids.add(line.visitorId)
  if (ID_LIKE.test(search)) ids.add(search)
  const found = await Promise.all(
    [...ids].slice(0, VISITORS_JOINED).map(async (visitorId) => {
      const list = await api.GET('/api/admin/frontend-errors', { query: new URLSearchParams({ visitor: visitorId, limit: '5' }) })
      return list.ok && list.data.items.length > 0 ? { visitorId, groups: list.data.items, hasMore: list.data.hasMore } : null
    }),
  )
  return found.filter((v): v is VisitorErrors => v !== null)
}

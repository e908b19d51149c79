import { cursorPosition, cursorQuery } from '~/components/reporting/report-paging'
import { noticeOf } from '~/components/reporting/report-action'
import { TELEMETRY_FILTER_NAMES, telemetryFiltersOf, telemetryQuery } from '~/lib/admin/telemetry'
import type { ApiClient } from '~/lib/api/types'

/**
 * /admin/telemetry: the ingest's figures per day, the newest event (spec §2: a one-row sample on
 * entry, its failure ignored) and a page of events with the URL's filters. Whatever fails, the
 * page still draws.
 */
export async function loadTelemetryPage(api: ApiClient, request: Request) {
  const params = new URL(request.url).searchParams
  const filters = telemetryFiltersOf(params)
  const position = cursorPosition(params)
  const [stats, sample, list] = await Promise.all([
    api.GET('/api/admin/telemetry/stats'),
    api.GET('/api/admin/telemetry/events', { query: { limit: 1 } }),
    api.GET('/api/admin/telemetry/events', { query: new URLSearchParams(telemetryQuery(filters, cursorQuery(position))) }),
  ])
  const refused = !list.ok && list.error.status === 400 ? (list.error.problem?.errors ?? {}) : {}
  const fieldErrors = Object.fromEntries(Object.entries(refused).filter(([name]) => (TELEMETRY_FILTER_NAMES as readonly string[]).includes(name)))
  const badCursor = 'after' in refused
  return {
    filters,
    position,
    stats: stats.ok ? stats.data : null,
    latest: sample.ok ? (sample.data.items[0] ?? null) : null,
    list: list.ok ? list.data : null,
    fieldErrors,
    notice:
      list.ok || Object.keys(fieldErrors).length > 0
        ? null
        : badCursor
          ? { message: 'That page of events is no longer valid. Start again from the first page.', correlationId: null }
          : noticeOf(list.error),
  }
}

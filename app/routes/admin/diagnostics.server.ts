import { redirect } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import { noticeFailure, noticeOf } from '~/components/reporting/report-action'
import { cursorPosition, cursorQuery } from '~/components/reporting/report-paging'
import { bucketFor, DIAGNOSTIC_CHECK_LABELS, DIAGNOSTICS_PAGE_SIZE, diagnosticsHref, type AnalysisQuery, type DiagnosticRunDetail, type DiagnosticsQuery } from '~/lib/admin/diagnostics'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'

/** /admin/diagnostics, its run pages and its analysis: the calls behind them. */

export async function loadDiagnostics(api: ApiClient, request: Request, query: DiagnosticsQuery, headers: Headers) {
  const position = cursorPosition(new URL(request.url).searchParams)
  const params = new URLSearchParams({ limit: String(DIAGNOSTICS_PAGE_SIZE), ...cursorQuery(position) })
  if (query.scope) params.set('scope', query.scope)
  if (query.outcome) params.set('outcome', query.outcome)
  const list = await api.GET('/api/diagnostics', { query: params })
  // A stale cursor (400) starts again from the first page rather than failing the screen.
  if (!list.ok && list.error.status === 400 && query.after) throw redirect(diagnosticsHref({ ...query, after: null, back: null }), { headers })
  if (!list.ok) throw loadError(list.error, headers)
  return { position, runs: list.data.items, nextCursor: list.data.nextCursor, tracking: list.data.tracking }
}

/** "Run checks now": the run happens in the backend; the list shows it at the top (Post/Redirect/Get). */
export async function runChecksNow(api: ApiClient, headers: Headers) {
  const result = await api.POST('/api/diagnostics')
  if (!result.ok) return noticeFailure('run', result.error, headers)
  const run = result.data
  const failing = run.checks.filter((c) => c.outcome === 'failed').map((c) => DIAGNOSTIC_CHECK_LABELS[c.check])
  await setFlash(headers, {
    tone: failing.length > 0 ? 'critical' : 'success',
    message: failing.length > 0 ? `The checks finished: ${failing.join(', ')} failed.` : 'The checks finished: everything passed.',
  })
  throw redirect('/admin/diagnostics', { headers })
}

export async function loadRun(api: ApiClient, id: string, headers: Headers): Promise<DiagnosticRunDetail> {
  const result = await api.GET('/api/diagnostics/{id}', { path: { id } })
  if (!result.ok) throw loadError(result.error, headers)
  return result.data
}

export async function loadAnalysis(api: ApiClient, query: AnalysisQuery) {
  const [summary, series] = await Promise.all([
    api.GET('/api/admin/diagnostics/analysis', { query: { hours: query.hours, scope: query.scope } }),
    api.GET('/api/admin/diagnostics/analysis/series', { query: { hours: query.hours, scope: query.scope, bucket: bucketFor(query.hours) } }),
  ])
  return {
    summary: summary.ok ? summary.data : null,
    series: series.ok ? series.data : null,
    notice: !summary.ok ? noticeOf(summary.error) : !series.ok ? noticeOf(series.error) : null,
  }
}

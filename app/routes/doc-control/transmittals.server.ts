import { loadProjectChoice } from '~/components/doc-control/project-choice.server'
import { hasNextPage, pageOf } from '~/components/doc-control/transmittal-paths'
import { noticeOf, type Notice } from '~/components/reporting/report-action'
import type { ApiClient } from '~/lib/api/types'
import { TRANSMITTAL_STATUSES, type TransmittalStatus } from '~/lib/doc-control/types'
import { TRANSMITTAL_PAGE_SIZE } from '~/lib/schemas/transmittals'

/** /doc-control/transmittals: a project's transmittals, newest first, filtered by status, a page at a time (all of it in the address). */
export async function loadTransmittals(api: ApiClient, request: Request, headers: Headers) {
  const params = new URL(request.url).searchParams
  const choice = await loadProjectChoice(api, request, headers)
  const wanted = params.get('status') ?? ''
  const status = (TRANSMITTAL_STATUSES as readonly string[]).includes(wanted) ? (wanted as TransmittalStatus) : null
  const page = pageOf(params)
  if (!choice.projectId) return { ...choice, status, page, list: null, hasNext: false, notice: null as Notice | null }
  const query = new URLSearchParams({ page: String(page), pageSize: String(TRANSMITTAL_PAGE_SIZE) })
  if (status) query.set('status', status)
  const list = await api.GET('/api/projects/{projectId}/transmittals', { path: { projectId: choice.projectId }, query: new URLSearchParams(query) })
  return {
    ...choice,
    status,
    page,
    list: list.ok ? list.data.items : null,
    hasNext: list.ok ? hasNextPage(list.data, page, TRANSMITTAL_PAGE_SIZE) : false,
    notice: list.ok ? null : noticeOf(list.error),
  }
}

import { pageOf } from '~/components/doc-control/workflow-paging'
import { loadProjectChoice } from '~/components/doc-control/project-choice.server'
import { noticeOf } from '~/components/reporting/report-action'
import type { ApiClient } from '~/lib/api/types'
import { WORKFLOW_STATUSES, type WorkflowStatus } from '~/lib/doc-control/types'

/** /doc-control/workflows: a project's reviews, filtered by status, a page at a time. */

export const WORKFLOWS_PAGE_SIZE = 25

export type WorkflowsQuery = { status: WorkflowStatus | null; page: number }

export function workflowsQuery(url: URL): WorkflowsQuery {
  const status = url.searchParams.get('status')
  return { status: (WORKFLOW_STATUSES as readonly string[]).includes(status ?? '') ? (status as WorkflowStatus) : null, page: pageOf(url.searchParams) }
}

export async function loadWorkflowsPage(api: ApiClient, request: Request, headers: Headers) {
  const query = workflowsQuery(new URL(request.url))
  const choice = await loadProjectChoice(api, request, headers)
  if (!choice.projectId) return { query, choice, list: null, notice: null }
  const params = new URLSearchParams({ page: String(query.page), pageSize: String(WORKFLOWS_PAGE_SIZE) })
  if (query.status) params.set('status', query.status)
  const list = await api.GET('/api/projects/{projectId}/workflows', { path: { projectId: choice.projectId }, query: new URLSearchParams(params) })
  return { query, choice, list: list.ok ? list.data : null, notice: list.ok ? null : noticeOf(list.error) }
}

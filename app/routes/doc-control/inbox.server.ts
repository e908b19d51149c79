import { data } from 'react-router'
import { pageOf } from '~/components/doc-control/workflow-paging'
import { noticeOf } from '~/components/reporting/report-action'
import type { ApiClient } from '~/lib/api/types'
import type { Workflow } from '~/lib/doc-control/types'
import { runWorkflowAction, workflowIntent } from './workflow.server'
import { isUuid } from '~/lib/schemas/uuid'

/** /doc-control/inbox: my review tasks and the transmittals sent to me, newest first, a page at a time. */

export const INBOX_KINDS = ['all', 'tasks', 'transmittals'] as const
export type InboxKind = (typeof INBOX_KINDS)[number]
export const INBOX_PAGE_SIZE = 20

export type InboxQuery = { kind: InboxKind; page: number }

export function inboxQuery(url: URL): InboxQuery {
  const kind = url.searchParams.get('kind')
  return { kind: (INBOX_KINDS as readonly string[]).includes(kind ?? '') ? (kind as InboxKind) : 'all', page: pageOf(url.searchParams) }
}

/**
 * The page of the inbox, and for each task the review it belongs to: the forms on a task offer the
 * outcomes of its step. A review that cannot be read leaves its task with a link only.
 */
export async function loadInboxPage(api: ApiClient, url: URL) {
  const query = inboxQuery(url)
  const params = new URLSearchParams({ kind: query.kind, page: String(query.page), pageSize: String(INBOX_PAGE_SIZE) })
  const inbox = await api.GET('/api/inbox', { query: new URLSearchParams(params) })
  if (!inbox.ok) return { query, inbox: null, reviews: {}, notice: noticeOf(inbox.error) }
  const workflowIds = [...new Set(inbox.data.items.flatMap((entry) => (entry.kind === 'task' ? [entry.workflowId] : [])))]
  const loaded = await Promise.all(workflowIds.map((id) => api.GET('/api/workflows/{workflowId}', { path: { workflowId: id } })))
  const reviews: Record<string, Workflow> = {}
  for (const result of loaded) if (result.ok) reviews[result.data.id] = result.data
  return { query, inbox: inbox.data, reviews, notice: null }
}

/** Approve or reject a task from the inbox (`workflowId` names its review), then back to the same page of the inbox. */
export async function actOnTask(api: ApiClient, formData: FormData, url: URL, headers: Headers) {
  const intent = workflowIntent(formData)
  if (intent !== 'approve' && intent !== 'reject') throw data('Unknown intent', { status: 400 })
  const workflowId = String(formData.get('workflowId') ?? '')
  if (!isUuid(workflowId)) throw data('Choose a review.', { status: 400 })
  return runWorkflowAction(api, intent, workflowId, formData, headers, { back: url.pathname + url.search, keepPage: true })
}

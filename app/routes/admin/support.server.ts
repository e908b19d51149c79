import { loadError } from '~/components/reporting/item-action'
import { SUPPORT_STATUSES, type SupportStatus } from '~/lib/admin/support'
import type { ApiClient } from '~/lib/api/types'
import { isUuid } from '~/lib/schemas/uuid'

/** /admin/support: the filters in the URL (status, assignee, search, page), and what the page loads. */

export const ADMIN_TICKETS_PAGE = 50

export type AdminTicketsQuery = { status: SupportStatus | null; assigneeId: string | null; q: string; after: string | null }

/** Unknown values are dropped rather than refused: a hand-edited URL shows the unfiltered list. */
export function adminTicketsQuery(url: URL): AdminTicketsQuery {
  const status = url.searchParams.get('status') ?? ''
  const assigneeId = url.searchParams.get('assigneeId') ?? ''
  const after = url.searchParams.get('after') ?? ''
  return {
    status: (SUPPORT_STATUSES as readonly string[]).includes(status) ? (status as SupportStatus) : null,
    assigneeId: assigneeId === 'none' || isUuid(assigneeId) ? assigneeId : null,
    q: (url.searchParams.get('q') ?? '').trim().slice(0, 200),
    after: after && after.length <= 200 ? after : null,
  }
}

export async function loadAdminTickets(api: ApiClient, query: AdminTicketsQuery, headers: Headers) {
  const params = new URLSearchParams({ limit: String(ADMIN_TICKETS_PAGE) })
  if (query.status) params.set('status', query.status)
  if (query.assigneeId) params.set('assigneeId', query.assigneeId)
  if (query.q) params.set('q', query.q)
  if (query.after) params.set('after', query.after)
  const [list, assignees] = await Promise.all([
    api.GET('/api/admin/support/tickets', { query: params }),
    api.GET('/api/admin/support/assignees'),
  ])
  if (!list.ok) throw loadError(list.error, headers)
  return { tickets: list.data.items, nextCursor: list.data.nextCursor, assignees: assignees.ok ? assignees.data.items : [] }
}

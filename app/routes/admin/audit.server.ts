import { data } from 'react-router'
import { cursorPosition, cursorQuery } from '~/components/reporting/report-paging'
import { noticeOf } from '~/components/reporting/report-action'
import { AUDIT_FILTER_NAMES, AUDIT_PAGE_SIZE, auditFiltersOf, auditQuery, type VerifyActionData } from '~/lib/admin/audit'
import type { ApiClient } from '~/lib/api/types'
import { failureStatus } from '~/lib/forms'

/**
 * /admin/audit: one page of the log with the filters of the URL, and the action names for the
 * filter. The list is also the page's one-row-sample-on-entry of spec §2: whatever fails, the page
 * still draws (a banner says why), and filters the API refused come back next to their fields.
 */
export async function loadAuditPage(api: ApiClient, request: Request) {
  const params = new URL(request.url).searchParams
  const filters = auditFiltersOf(params)
  const position = cursorPosition(params)
  const [list, actions] = await Promise.all([
    api.GET('/api/admin/audit', { query: new URLSearchParams(auditQuery(filters, { limit: String(AUDIT_PAGE_SIZE), ...cursorQuery(position) })) }),
    api.GET('/api/admin/audit/actions'),
  ])
  const refused = !list.ok && list.error.status === 400 ? (list.error.problem?.errors ?? {}) : {}
  const fieldErrors = Object.fromEntries(Object.entries(refused).filter(([name]) => (AUDIT_FILTER_NAMES as readonly string[]).includes(name)))
  const badCursor = 'after' in refused
  return {
    filters,
    position,
    // The chain's hashes are for the check and the export, not the table: a phone need not download them.
    list: list.ok ? { ...list.data, items: list.data.items.map((entry) => ({ ...entry, hash: null, prevHash: null })) } : null,
    actions: actions.ok ? actions.data.items.map((a) => a.action) : [],
    fieldErrors,
    notice:
      list.ok || Object.keys(fieldErrors).length > 0
        ? null
        : badCursor
          ? { message: 'That page of the log is no longer valid. Start again from the first page.', correlationId: null }
          : noticeOf(list.error),
  }
}

/** "Verify chain": the check runs in the backend (and is recorded there); the answer is shown on the page. */
export async function verifyChain(api: ApiClient, headers: Headers) {
  const result = await api.GET('/api/admin/audit/verify')
  if (!result.ok) return data<VerifyActionData>({ intent: 'verify', notice: noticeOf(result.error) }, { status: failureStatus(result.error), headers })
  return data<VerifyActionData>({ intent: 'verify', verification: result.data }, { headers })
}

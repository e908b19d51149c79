import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { invalidForm, formFailure, noticeOf } from '~/components/reporting/report-action'
import { cursorPosition, cursorQuery, type CursorPosition } from '~/components/reporting/report-paging'
import type { UsersFilter } from '~/components/admin/users-filter'
import { ADMIN_ROLE_KEYS, MEMBERSHIP_STATUSES } from '~/lib/admin/users'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { AddMemberSchema } from '~/lib/schemas/admin-users'

/** /admin/users: what the list loads (filters and paging from the URL) and its "Add member" action. */

export function usersFilterOf(searchParams: URLSearchParams): UsersFilter {
  const role = searchParams.get('role') ?? ''
  const status = searchParams.get('status') ?? ''
  return {
    q: (searchParams.get('q') ?? '').trim().slice(0, 200),
    role: (ADMIN_ROLE_KEYS as readonly string[]).includes(role) ? role : '',
    status: (MEMBERSHIP_STATUSES as readonly string[]).includes(status) ? status : '',
  }
}

export async function loadUsersPage(api: ApiClient, url: URL) {
  const filter = usersFilterOf(url.searchParams)
  const position: CursorPosition = cursorPosition(url.searchParams)
  const query = new URLSearchParams({ limit: '50', ...cursorQuery(position) })
  if (filter.q) query.set('q', filter.q)
  if (filter.role) query.set('roleKey', filter.role)
  if (filter.status) query.set('status', filter.status)
  const [list, organisations] = await Promise.all([api.GET('/api/admin/users', { query: new URLSearchParams(query) }), api.GET('/api/admin/organisations')])
  if (!list.ok && list.error.status === 400 && position.after) {
    // A stale or edited cursor: start again from the first page with the same filters.
    const fresh = new URLSearchParams(url.searchParams)
    fresh.delete('after')
    fresh.delete('back')
    throw redirect(`${url.pathname}${fresh.size > 0 ? `?${fresh}` : ''}`)
  }
  return {
    filter,
    position,
    page: list.ok ? list.data : null,
    organisation: organisations.ok ? (organisations.data.items.find((o) => o.isCurrent) ?? null) : null,
    loadNotice: list.ok ? null : noticeOf(list.error),
  }
}

/** "Add member": on success, the new member's page. */
export async function addMember(api: ApiClient, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: AddMemberSchema })
  if (submission.status !== 'success') return invalidForm('add-member', submission)
  const organisationId = String(formData.get('organisationId') ?? '')
  if (!organisationId) throw data('The organisation is missing.', { status: 400 })
  const result = await api.POST('/api/admin/organisations/{id}/members', { path: { id: organisationId }, body: submission.value, idempotencyKey: true })
  if (!result.ok) return formFailure('add-member', submission, result.error, headers)
  await setFlash(headers, { tone: 'success', message: `${result.data.displayName} is now a member of the organisation.` })
  throw redirect(`/admin/users/${encodeURIComponent(result.data.id)}`, { headers })
}

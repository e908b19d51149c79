/** /admin/join-requests (issue 13, docs/admin/join-requests-and-devices.md): shapes, the URL query and the forms. */

export const JOIN_REQUEST_FILTERS = ['pending', 'approved', 'declined', 'withdrawn', 'all'] as const
export type JoinRequestFilter = (typeof JOIN_REQUEST_FILTERS)[number]
export type JoinRequestStatus = Exclude<JoinRequestFilter, 'all'>

export const ROLE_CHOICES = [
  { value: 'read-only', label: 'Read Only' },
  { value: 'read-write', label: 'Read & Write' },
  { value: 'admin', label: 'Administrator' },
] as const
export type RoleKey = (typeof ROLE_CHOICES)[number]['value']

export function roleLabel(roleKey: string | null): string {
  return ROLE_CHOICES.find((r) => r.value === roleKey)?.label ?? '—'
}

export const STATUS_LABELS: Record<JoinRequestFilter, string> = {
  pending: 'Pending',
  approved: 'Approved',
  declined: 'Declined',
  withdrawn: 'Withdrawn',
  all: 'All',
}

/** GET /api/admin/join-requests, one row. */
export type AdminJoinRequest = {
  id: string
  requester: { id: string; displayName: string; email: string }
  message: string | null
  status: JoinRequestStatus
  roleKey: RoleKey | null
  declineReason: string | null
  decidedBy: { id: string; displayName: string } | null
  createdAtUtc: string
  decidedAtUtc: string | null
}

export type JoinRequestPage = { items: AdminJoinRequest[]; nextCursor: string | null }

/** GET /api/join-requests/mine, one row (the requester's view, for /join). */
export type OwnJoinRequest = {
  id: string
  organisationName: string
  organisationSlug: string
  status: JoinRequestStatus
  declineReason: string | null
  createdAt: string
  decidedAt: string | null
}

export type JoinRequestsQuery = { status: JoinRequestFilter; after: string | null }

export function joinRequestsQuery(url: URL): JoinRequestsQuery {
  const status = url.searchParams.get('status')
  const after = url.searchParams.get('after')
  return {
    status: (JOIN_REQUEST_FILTERS as readonly string[]).includes(status ?? '') ? (status as JoinRequestFilter) : 'pending',
    after: after && after.length <= 200 ? after : null,
  }
}

export function joinRequestsHref(query: Partial<JoinRequestsQuery>): string {
  const params = new URLSearchParams()
  if (query.status && query.status !== 'pending') params.set('status', query.status)
  if (query.after) params.set('after', query.after)
  const search = params.toString()
  return `/admin/join-requests${search ? `?${search}` : ''}`
}

/** The query of GET /api/admin/join-requests for the screen's filters. */
export function joinRequestsApiQuery(query: JoinRequestsQuery, limit = 50): URLSearchParams {
  const params = new URLSearchParams({ status: query.status, limit: String(limit) })
  if (query.after) params.set('after', query.after)
  return params
}

/** Administration › Audit (docs/admin/audit.md): the API's shapes and the page's filters in the URL. */

export type AuditActor = { id: string; displayName: string | null; email: string | null }

export type AuditEntry = {
  id: string
  chainSeq: number
  action: string
  actor: AuditActor | null
  targetType: string | null
  targetId: string | null
  /** What the target is called now (a person's name, a project's title, a document's number, a folder's name), when the log can say. */
  targetName: string | null
  ip: string | null
  correlationId: string | null
  data: Record<string, unknown> | null
  createdAtUtc: string
  hash: string | null
  prevHash: string | null
}

export type AuditPage = { items: AuditEntry[]; nextCursor: string | null }

export type AuditActionCount = { action: string; count: number; lastAtUtc: string }

export type ChainBreakReason = 'hash-mismatch' | 'link-mismatch' | 'missing-entry' | 'head-mismatch'

export type ChainVerification = {
  ok: boolean
  checked: number
  headSeq: number
  firstBroken: { chainSeq: number; id: string | null; reason: ChainBreakReason; detail?: string } | null
  verifiedAtUtc: string
}

/** What the page's "Verify chain" action answers: the result, or why there is none. */
export type VerifyActionData = { intent: 'verify'; verification?: ChainVerification; notice?: { message: string; correlationId: string | null } }

export const AUDIT_PAGE_SIZE = 50

export const AUDIT_FILTER_NAMES = ['q', 'action', 'from', 'to', 'actorUserId', 'targetType', 'targetId'] as const
export type AuditFilterName = (typeof AUDIT_FILTER_NAMES)[number]
/** Each filter as typed ('' when not set). */
export type AuditFilterValues = Record<AuditFilterName, string>

export function auditFiltersOf(searchParams: URLSearchParams): AuditFilterValues {
  return Object.fromEntries(AUDIT_FILTER_NAMES.map((name) => [name, (searchParams.get(name) ?? '').trim()])) as AuditFilterValues
}

/** The filters that are set, as the API's query (and the export links'). */
export function auditQuery(filters: AuditFilterValues, extra: Record<string, string> = {}): URLSearchParams {
  const query = new URLSearchParams()
  for (const name of AUDIT_FILTER_NAMES) if (filters[name]) query.set(name, filters[name])
  for (const [name, value] of Object.entries(extra)) query.set(name, value)
  return query
}

export function hasFilters(filters: AuditFilterValues): boolean {
  return AUDIT_FILTER_NAMES.some((name) => filters[name] !== '')
}

export const CHAIN_BREAK_LABELS: Record<ChainBreakReason, string> = {
  'hash-mismatch': 'An entry was changed',
  'link-mismatch': 'An entry does not link to the one before it',
  'missing-entry': 'Entries are missing',
  'head-mismatch': 'The newest entries do not match the chain head',
}

/** Path of the audit page with these filters (and nothing else). */
export function auditHref(filters: Partial<AuditFilterValues>): string {
  const query = new URLSearchParams()
  for (const name of AUDIT_FILTER_NAMES) {
    const value = filters[name]
    if (value) query.set(name, value)
  }
  const search = query.toString()
  return search ? `/admin/audit?${search}` : '/admin/audit'
}

/**
 * Administration › Security › CSP reports: the JSON shapes of `/api/admin/security/csp-reports*`
 * and the page's URL, shared by the backend and the screen (no zod here).
 */

export const CSP_DISPOSITIONS = ['enforce', 'report'] as const
export type CspDisposition = (typeof CSP_DISPOSITIONS)[number]

/** 50 a page (spec §9). */
export const CSP_PAGE_SIZE = 50
export const CSP_PAGE_SIZE_MAX = 200
/** Groups of reports without an organisation shown beside the organisation's (counts only). */
export const CSP_UNTENANTED_GROUPS = 20

export type CspReportGroup = {
  group: string
  directive: string
  blockedUrl: string
  count: number
  firstSeenUtc: string
  lastSeenUtc: string
  /** The newest report's page, without query or fragment. */
  sampleDocumentUrl: string | null
  /** The newest report's source as file:line(:column), when the browser said. */
  sampleSource: string | null
  dispositions: CspDisposition[]
}

/** Reports that came without an organisation (anyone's sign-in page): counted, never with their pages. */
export type CspUntenantedGroup = { directive: string; blockedUrl: string; count: number; firstSeenUtc: string; lastSeenUtc: string }

export type CspReportGroupPage = {
  items: CspReportGroup[]
  page: number
  nextPage: number | null
  untenanted: CspUntenantedGroup[]
}

export type CspReportEntry = {
  id: string
  directive: string
  blockedUrl: string
  documentUrl: string | null
  sourceFile: string | null
  lineNumber: number | null
  columnNumber: number | null
  disposition: CspDisposition
  sample: string | null
  userAgent: string | null
  receivedAtUtc: string
}

export type CspReportOccurrencePage = { group: CspReportGroup; items: CspReportEntry[]; page: number; nextPage: number | null }

/** /admin/security/csp-reports's URL. */
export type CspReportsQuery = { directive: string | null; since: string | null; disposition: CspDisposition | null; page: number; group: string | null }

export function cspReportsQuery(url: URL): CspReportsQuery {
  const get = (name: string, max: number) => url.searchParams.get(name)?.trim().slice(0, max) || null
  const disposition = get('disposition', 20)
  const page = Number(url.searchParams.get('page'))
  return {
    directive: get('directive', 64),
    since: get('since', 40),
    disposition: (CSP_DISPOSITIONS as readonly string[]).includes(disposition ?? '') ? (disposition as CspDisposition) : null,
    page: Number.isInteger(page) && page >= 1 && page <= 10_000 ? page : 1,
    group: get('group', 3000),
  }
}

export function cspReportsApiQuery(query: Partial<CspReportsQuery>, page?: number): URLSearchParams {
  const params = new URLSearchParams()
  if (query.directive) params.set('directive', query.directive)
  if (query.since) params.set('since', query.since)
  if (query.disposition) params.set('disposition', query.disposition)
  if (page && page > 1) params.set('page', String(page))
  return params
}

export function cspReportsHref(query: Partial<CspReportsQuery>): string {
  const params = cspReportsApiQuery(query, query.page)
  if (query.group) params.set('group', query.group)
  const search = params.toString()
  return `/admin/security/csp-reports${search ? `?${search}` : ''}`
}

/** file:line:column, or what of it is known. */
export function sourceOf(file: string | null, line: number | null, column: number | null): string | null {
  if (!file) return null
  return `${file}${line ? `:${line}${column ? `:${column}` : ''}` : ''}`
}

import { CDE_STATES, type CdeState } from './types'

/**
 * What /documents shows, all of it in the URL (docs/documents.md "Screens"): the project, the
 * folder, and the search with its filters and page. Links and the GET forms build it; the loader
 * reads it back, dropping anything that is not a value it knows.
 */
export type DocumentsQuery = {
  projectId: string | null
  folderId: string | null
  q: string
  discipline: string
  status: string
  state: CdeState | ''
  page: number
}

export const DOCUMENTS_PAGE_SIZE = 25

/** The search call takes at most this much text (server/domain/documents/search.ts SEARCH_TEXT_MAX). */
const QUERY_MAX = 100

const ID = /^[A-Za-z0-9-]{1,64}$/
const CODE = /^[A-Za-z0-9]{1,6}$/

export function parseDocumentsQuery(params: URLSearchParams): DocumentsQuery {
  const id = (name: string) => {
    const value = params.get(name)?.trim() ?? ''
    return ID.test(value) ? value : null
  }
  const code = (name: string) => {
    const value = params.get(name)?.trim().toUpperCase() ?? ''
    return CODE.test(value) ? value : ''
  }
  const state = params.get('state') ?? ''
  const page = Number(params.get('page') ?? '1')
  return {
    projectId: id('projectId'),
    folderId: id('folderId'),
    q: (params.get('q') ?? '').trim().slice(0, QUERY_MAX),
    discipline: code('discipline'),
    status: code('status'),
    state: (CDE_STATES as readonly string[]).includes(state) ? (state as CdeState) : '',
    page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
  }
}

/** True when the screen lists search results rather than the folder's documents. */
export function isSearching(query: DocumentsQuery): boolean {
  return query.q !== '' || query.discipline !== '' || query.status !== '' || query.state !== ''
}

/** The URL of a state of /documents; empty values are left out, page 1 too. */
export function documentsHref(query: Partial<DocumentsQuery>): string {
  const params = new URLSearchParams()
  if (query.projectId) params.set('projectId', query.projectId)
  if (query.folderId) params.set('folderId', query.folderId)
  if (query.q) params.set('q', query.q)
  if (query.discipline) params.set('discipline', query.discipline)
  if (query.status) params.set('status', query.status)
  if (query.state) params.set('state', query.state)
  if (query.page && query.page > 1) params.set('page', String(query.page))
  const search = params.toString()
  return search ? `/documents?${search}` : '/documents'
}

/** A folder of a project in /documents (null: the project's top). */
export function folderHref(projectId: string, folderId: string | null): string {
  return documentsHref({ projectId, folderId })
}

/** The query of GET /api/documents/search for this state. */
export function searchParamsOf(query: DocumentsQuery & { projectId: string }): URLSearchParams {
  const params = new URLSearchParams({ projectId: query.projectId, page: String(query.page), pageSize: String(DOCUMENTS_PAGE_SIZE) })
  if (query.folderId) params.set('folderId', query.folderId)
  if (query.q) params.set('q', query.q)
  if (query.discipline) params.set('discipline', query.discipline)
  if (query.status) params.set('status', query.status)
  if (query.state) params.set('state', query.state)
  return params
}

/**
 * The register of what the screen shows (the project, the folder or the search; every page):
 * GET /api/documents/register/export with the same search.
 */
export function registerExportHref(query: DocumentsQuery & { projectId: string }, format: 'csv' | 'xlsx'): string {
  const params = searchParamsOf(query)
  params.delete('page')
  params.delete('pageSize')
  params.set('format', format)
  return `/api/documents/register/export?${params.toString()}`
}

/**
 * The same register as the export job's filters (POST /api/exports, kinds register-csv and
 * register-xlsx: `project`, `folder`, and the search's `suitability` for its `status`), the empty
 * ones left out.
 */
export function registerJobFilters(query: DocumentsQuery & { projectId: string }): Record<string, string> {
  const filters: Record<string, string> = { project: query.projectId }
  if (query.folderId) filters.folder = query.folderId
  if (query.q) filters.q = query.q
  if (query.discipline) filters.discipline = query.discipline
  if (query.status) filters.suitability = query.status
  if (query.state) filters.state = query.state
  return filters
}

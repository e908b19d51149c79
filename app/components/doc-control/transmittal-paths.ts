import { isUuid } from '~/lib/schemas/uuid'
/**
 * Addresses of the sets, transmittals and wizard screens. Every screen address keeps `projectId`, so
 * the document-control tabs stay in the project (the API is called through the typed client).
 */

const enc = encodeURIComponent

function withQuery(path: string, params: Record<string, string | null | undefined>): string {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) if (value) search.set(name, value)
  const query = search.toString()
  return query ? `${path}?${query}` : path
}

export const transmittalPage = (id: string, projectId: string | null) => withQuery(`/doc-control/transmittals/${enc(id)}`, { projectId })
export const transmittalsPage = (projectId: string | null, params: Record<string, string | null> = {}) => withQuery('/doc-control/transmittals', { projectId, ...params })
export const wizardPage = (projectId: string | null, params: Record<string, string | null | undefined> = {}) => withQuery('/doc-control/wizard', { projectId, ...params })
export const setPage = (id: string, projectId: string | null) => withQuery(`/doc-control/sets/${enc(id)}`, { projectId })
export const setsPage = (projectId: string | null) => withQuery('/doc-control/sets', { projectId })
export const documentPage = (id: string) => `/documents/${enc(id)}`

/** The ids a form posted under `name` that are UUIDs, in order, each once. */
export function idsOf(formData: FormData, name: string): string[] {
  return [...new Set(formData.getAll(name).filter(isUuid))]
}

/**
 * A page of a list as the API answers it. The contract names `page` for these lists; the total is
 * used when it comes, else a full page means there may be more.
 */
export type ListPage<T> = { items: T[]; total?: number; page?: number; pageSize?: number; nextCursor?: string | null }

export function hasNextPage(list: ListPage<unknown>, page: number, pageSize: number): boolean {
  if (typeof list.total === 'number') return page * (list.pageSize ?? pageSize) < list.total
  if (list.nextCursor !== undefined) return list.nextCursor !== null
  return list.items.length >= pageSize
}

export function pageOf(params: URLSearchParams): number {
  const page = Number(params.get('page') ?? '1')
  return Number.isSafeInteger(page) && page >= 1 && page <= 1000 ? page : 1
}

import { isUuid } from '~/lib/schemas/uuid'
/** /admin/packages's URL: the project chosen and the package being renamed. */

export type PackagesQuery = { projectId: string | null; rename: string | null }

export function packagesQuery(url: URL): PackagesQuery {
  const projectId = url.searchParams.get('projectId')
  const rename = url.searchParams.get('rename')
  return { projectId: projectId && isUuid(projectId) ? projectId : null, rename: rename || null }
}

export function packagesHref(query: Partial<PackagesQuery>): string {
  const params = new URLSearchParams()
  if (query.projectId) params.set('projectId', query.projectId)
  if (query.rename) params.set('rename', query.rename)
  const search = params.toString()
  return `/admin/packages${search ? `?${search}` : ''}`
}

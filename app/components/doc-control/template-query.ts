import { isUuid } from '~/lib/schemas/uuid'
export type TemplatesQuery = { archived: boolean; editing: string | null; creating: boolean }

export function templatesQuery(url: URL): TemplatesQuery {
  const edit = url.searchParams.get('edit')
  return { archived: url.searchParams.get('archived') === '1', editing: edit && isUuid(edit) ? edit : null, creating: url.searchParams.get('new') === '1' }
}

export function templatesHref(query: Partial<TemplatesQuery>): string {
  const params = new URLSearchParams()
  if (query.archived) params.set('archived', '1')
  if (query.editing) params.set('edit', query.editing)
  if (query.creating) params.set('new', '1')
  const search = params.toString()
  return `/admin/workflow-templates${search ? `?${search}` : ''}`
}

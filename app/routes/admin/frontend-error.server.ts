import { loadError } from '~/components/reporting/item-action'
import { type FrontendErrorDetail, pageOf } from '~/lib/admin/frontend-errors'
import type { ApiClient } from '~/lib/api/types'

/** /admin/frontend-errors/{fingerprint}: the error, the people it happened to, and a page of its occurrences with mapped stacks. */
export async function loadFrontendError(api: ApiClient, fingerprint: string, request: Request, headers: Headers): Promise<FrontendErrorDetail> {
  const page = pageOf(new URL(request.url).searchParams)
  const result = await api.GET('/api/admin/frontend-errors/{fingerprint}', { path: { fingerprint }, query: { page: page > 1 ? page : undefined } })
  if (!result.ok) throw loadError(result.error, headers)
  return result.data
}

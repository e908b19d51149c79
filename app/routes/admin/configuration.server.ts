import { loadError } from '~/components/reporting/item-action'
import type { ApiClient } from '~/lib/api/types'

/** /admin/configuration: every category's status, with its description from the schema. */
export async function loadConfigurationPage(api: ApiClient, headers: Headers) {
  const [status, schema] = await Promise.all([api.GET('/api/admin/config/status'), api.GET('/api/admin/config/schema')])
  if (!status.ok) throw loadError(status.error, headers)
  // The descriptions are a help: without them the list still works.
  const descriptions: Record<string, string> = schema.ok ? Object.fromEntries(schema.data.categories.map((c) => [c.key, c.description])) : {}
  return { categories: status.data.categories, descriptions }
}

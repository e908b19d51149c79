import { noticeOf } from '~/components/reporting/report-action'
import { SCHEMA_INCIDENT_PAGE_SIZE, schemaIncidentsApiQuery, type SchemaIncidentsQuery } from '~/lib/admin/schema-incidents'
import type { ApiClient } from '~/lib/api/types'

/**
 * /admin/schema-incidents: a page of groups with the URL's filters, and the occurrences of the
 * group the URL opens. Whatever fails, the page still draws: a refused filter comes back next to
 * its field, anything else as a banner.
 */
export async function loadSchemaIncidents(api: ApiClient, query: SchemaIncidentsQuery) {
  const params = schemaIncidentsApiQuery(query, query.page)
  params.set('limit', String(SCHEMA_INCIDENT_PAGE_SIZE))
  const [list, occurrences] = await Promise.all([
    api.GET('/api/admin/schema-incidents', { query: params }),
    query.group ? api.GET('/api/admin/schema-incidents/groups/{group}', { path: { group: query.group }, query: { scope: query.scope === 'instance' ? 'instance' : undefined } }) : Promise.resolve(null),
  ])
  const fieldErrors = !list.ok && list.error.status === 400 ? (list.error.problem?.errors ?? {}) : {}
  return {
    list: list.ok ? list.data : null,
    fieldErrors,
    notice: list.ok || Object.keys(fieldErrors).length > 0 ? null : noticeOf(list.error),
    occurrences: occurrences?.ok ? occurrences.data : null,
    occurrencesMissing: occurrences !== null && !occurrences.ok,
  }
}

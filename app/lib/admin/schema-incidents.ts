/**
 * Administration › Schema incidents: the JSON shapes of `/api/admin/schema-incidents*` and the
 * page's URL, shared by the backend and the screen (no zod here: it stays out of the page's bundle).
 */

/** server: checked before sending (a sample in production, every response in tests); web: by the browser's API client. */
export const SCHEMA_INCIDENT_SOURCES = ['server', 'web'] as const
export type SchemaIncidentSource = (typeof SCHEMA_INCIDENT_SOURCES)[number]
/** Mismatches one report of the browser's API client may carry (POST /telemetry/schema-incidents). */
export const WEB_SCHEMA_INCIDENTS_MAX = 10

/** organisation: the organisation's calls; instance: calls made without one (signed out), for the whole server. */
export const SCHEMA_INCIDENT_SCOPES = ['organisation', 'instance'] as const
export type SchemaIncidentScope = (typeof SCHEMA_INCIDENT_SCOPES)[number]

/** 50 a page (spec §9). */
export const SCHEMA_INCIDENT_PAGE_SIZE = 50
export const SCHEMA_INCIDENT_PAGE_SIZE_MAX = 200

export type SchemaIncidentGroup = {
  group: string
  source: SchemaIncidentSource
  method: string
  path: string
  field: string
  count: number
  firstSeenUtc: string
  lastSeenUtc: string
  lastStatus: number
  lastExpected: string
  lastGot: string
  lastCorrelationId: string | null
}

export type SchemaIncidentGroupPage = { scope: SchemaIncidentScope; items: SchemaIncidentGroup[]; page: number; nextPage: number | null }

export type SchemaIncident = {
  id: string
  status: number
  expected: string
  got: string
  correlationId: string | null
  release: string | null
  occurredAtUtc: string
}

export type SchemaIncidentOccurrencePage = { scope: SchemaIncidentScope; group: SchemaIncidentGroup; items: SchemaIncident[]; page: number; nextPage: number | null }

/** /admin/schema-incidents's URL: filters, page, and the group whose occurrences are open. */
export type SchemaIncidentsQuery = {
  path: string | null
  since: string | null
  source: SchemaIncidentSource | null
  scope: SchemaIncidentScope
  page: number
  group: string | null
}

export function schemaIncidentsQuery(url: URL): SchemaIncidentsQuery {
  const get = (name: string, max: number) => url.searchParams.get(name)?.trim().slice(0, max) || null
  const source = get('source', 20)
  const scope = get('scope', 20)
  const page = Number(url.searchParams.get('page'))
  return {
    path: get('path', 200),
    since: get('since', 40),
    source: (SCHEMA_INCIDENT_SOURCES as readonly string[]).includes(source ?? '') ? (source as SchemaIncidentSource) : null,
    scope: scope === 'instance' ? 'instance' : 'organisation',
    page: Number.isInteger(page) && page >= 1 && page <= 10_000 ? page : 1,
    group: get('group', 1000),
  }
}

/** The API query of a page (filters and page; not the open group). */
export function schemaIncidentsApiQuery(query: Partial<SchemaIncidentsQuery>, page?: number): URLSearchParams {
  const params = new URLSearchParams()
  if (query.path) params.set('path', query.path)
  if (query.since) params.set('since', query.since)
  if (query.source) params.set('source', query.source)
  if (query.scope && query.scope !== 'organisation') params.set('scope', query.scope)
  if (page && page > 1) params.set('page', String(page))
  return params
}

export function schemaIncidentsHref(query: Partial<SchemaIncidentsQuery>): string {
  const params = schemaIncidentsApiQuery(query, query.page)
  if (query.group) params.set('group', query.group)
  const search = params.toString()
  return `/admin/schema-incidents${search ? `?${search}` : ''}`
}

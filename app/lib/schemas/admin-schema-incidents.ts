import { z } from 'zod'
import { SCHEMA_INCIDENT_PAGE_SIZE, SCHEMA_INCIDENT_PAGE_SIZE_MAX, SCHEMA_INCIDENT_SCOPES, SCHEMA_INCIDENT_SOURCES } from '~/lib/admin/schema-incidents'

/**
 * Administration › Schema incidents: the filters as the API reads them (and the page's GET form
 * sends them; an empty field is no filter), and the JSON shapes of `/api/admin/schema-incidents*`.
 */
export const SCHEMA_INCIDENT_PATH_MAX = 200

const blankIsAbsent = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : typeof v === 'string' ? v.trim() : v), schema.optional())

/** A day (YYYY-MM-DD, from its start in UTC) or an instant (ISO 8601 with a zone). */
export const sinceParam = blankIsAbsent(
  z
    .string()
    .max(40)
    .refine((v) => (/^\d{4}-\d{2}-\d{2}$/.test(v) ? z.iso.date().safeParse(v).success : z.iso.datetime({ offset: true }).safeParse(v).success), 'since is a date (YYYY-MM-DD) or a time with its zone (ISO 8601).')
    .transform((v) => new Date(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v)),
)

const pageParam = (name: string, max: number) =>
  blankIsAbsent(
    z.coerce
      .number({ error: `${name} must be a whole number from 1 to ${max}.` })
      .int(`${name} must be a whole number from 1 to ${max}.`)
      .min(1, `${name} must be a whole number from 1 to ${max}.`)
      .max(max, `${name} must be a whole number from 1 to ${max}.`),
  )

export const pagingParams = (defaultLimit: number, maxLimit: number) => ({
  page: pageParam('page', 10_000).transform((v) => v ?? 1),
  limit: pageParam('limit', maxLimit).transform((v) => v ?? defaultLimit),
})

export const SchemaIncidentFilterSchema = z.object({
  path: blankIsAbsent(z.string().max(SCHEMA_INCIDENT_PATH_MAX, `path is at most ${SCHEMA_INCIDENT_PATH_MAX} characters.`)),
  since: sinceParam,
  source: blankIsAbsent(z.enum(SCHEMA_INCIDENT_SOURCES, { error: `source is one of ${SCHEMA_INCIDENT_SOURCES.join(', ')}.` })),
  scope: blankIsAbsent(z.enum(SCHEMA_INCIDENT_SCOPES, { error: `scope is one of ${SCHEMA_INCIDENT_SCOPES.join(', ')}.` })).transform((v) => v ?? 'organisation'),
})

export const SchemaIncidentListQuerySchema = SchemaIncidentFilterSchema.extend(pagingParams(SCHEMA_INCIDENT_PAGE_SIZE, SCHEMA_INCIDENT_PAGE_SIZE_MAX))

const iso = z.string().describe('ISO 8601, UTC.')

export const SchemaIncidentGroupSchema = z.object({
  group: z.string().describe('The group’s key, for /api/admin/schema-incidents/groups/{group}.'),
  source: z.enum(SCHEMA_INCIDENT_SOURCES),
  method: z.string(),
  path: z.string().describe('The call’s path template, e.g. /api/items/{itemId}.'),
  field: z.string().describe('Where in the body, e.g. items.3.dueDate; "" for the body itself.'),
  count: z.number().int(),
  firstSeenUtc: iso,
  lastSeenUtc: iso,
  lastStatus: z.number().int(),
  lastExpected: z.string(),
  lastGot: z.string(),
  lastCorrelationId: z.string().nullable(),
}).meta({ id: 'SchemaIncidentGroup' })

export const SchemaIncidentGroupPageSchema = z.object({
  scope: z.enum(SCHEMA_INCIDENT_SCOPES),
  items: z.array(SchemaIncidentGroupSchema),
  page: z.number().int(),
  nextPage: z.number().int().nullable(),
})

export const SchemaIncidentSchema = z.object({
  id: z.uuid(),
  status: z.number().int(),
  expected: z.string(),
  got: z.string(),
  correlationId: z.string().nullable(),
  release: z.string().nullable(),
  occurredAtUtc: iso,
})

export const SchemaIncidentOccurrencePageSchema = z.object({
  scope: z.enum(SCHEMA_INCIDENT_SCOPES),
  group: SchemaIncidentGroupSchema,
  items: z.array(SchemaIncidentSchema),
  page: z.number().int(),
  nextPage: z.number().int().nullable(),
})

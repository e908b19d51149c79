import { z } from 'zod'

/**
 * Administration › Frontend errors (issue 15): the filters of `GET /api/admin/frontend-errors` as
 * the API reads them and the page's GET form sends them (an empty field is no filter), and the
 * answers' shapes, shared by the backend (response schemas) and the screens (types).
 */

/** Spec §9: 50 a page. */
export const FRONTEND_ERRORS_PAGE_SIZE = 50
export const FRONTEND_ERRORS_PAGE_SIZE_MAX = 200
export const FRONTEND_ERRORS_PAGE_MAX = 1000
export const FRONTEND_ERROR_SEARCH_MAX = 200
export const VISITOR_FILTER_MAX = 200

const blankIsAbsent = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : typeof v === 'string' ? v.trim() : v), schema.optional())

const SINCE_ERROR = 'since is a date (YYYY-MM-DD) or a time (ISO 8601).'
/** A day (from its start, UTC) or an instant; between 2000 and 2200 like the ingest's times. */
export const sinceParam = blankIsAbsent(
  z
    .union([z.iso.date({ error: SINCE_ERROR }), z.iso.datetime({ offset: true, error: SINCE_ERROR })], { error: SINCE_ERROR })
    .transform((v) => new Date(v.length === 10 ? `${v}T00:00:00Z` : v))
    .refine((d) => d.getTime() >= Date.parse('2000-01-01T00:00:00Z') && d.getTime() < Date.parse('2200-01-01T00:00:00Z'), SINCE_ERROR),
)

export const visitorParam = blankIsAbsent(z.string().max(VISITOR_FILTER_MAX, `visitor is at most ${VISITOR_FILTER_MAX} characters.`))

const whole = (name: string, max: number) =>
  blankIsAbsent(
    z.coerce
      .number({ error: `${name} must be a whole number from 1 to ${max}.` })
      .int(`${name} must be a whole number from 1 to ${max}.`)
      .min(1, `${name} must be a whole number from 1 to ${max}.`)
      .max(max, `${name} must be a whole number from 1 to ${max}.`),
  )

const pageParams = {
  page: whole('page', FRONTEND_ERRORS_PAGE_MAX).transform((v) => v ?? 1),
  limit: whole('limit', FRONTEND_ERRORS_PAGE_SIZE_MAX).transform((v) => v ?? FRONTEND_ERRORS_PAGE_SIZE),
}

export const FrontendErrorFilterSchema = z.object({
  q: blankIsAbsent(z.string().max(FRONTEND_ERROR_SEARCH_MAX, `Search at most ${FRONTEND_ERROR_SEARCH_MAX} characters.`)),
  since: sinceParam,
  visitor: visitorParam,
})

export const FrontendErrorListQuerySchema = FrontendErrorFilterSchema.extend(pageParams)
export const FrontendErrorOccurrencesQuerySchema = z.object(pageParams)

const Utc = z.string().describe('ISO 8601, UTC.')

export const FrontendErrorGroupSchema = z.object({
  fingerprint: z.string().describe('SHA-256 (hex) of the message and the top three frames.'),
  name: z.string().describe('web.error.<source> of the latest occurrence.'),
  message: z.string(),
  count: z.number().int(),
  firstSeenUtc: Utc,
  lastSeenUtc: Utc,
  users: z.number().int().describe('Distinct people (only those the organisation names: Settings › Admin “identify users in reports”).'),
  visitors: z.number().int().describe('Distinct visitor ids (kr-vis).'),
  lastPath: z.string().nullable(),
  lastRelease: z.string().nullable(),
}).meta({ id: 'FrontendErrorGroup' })

const Paged = { page: z.number().int(), pageSize: z.number().int(), hasMore: z.boolean() }

export const FrontendErrorListSchema = z.object({ items: z.array(FrontendErrorGroupSchema), ...Paged })

export const StackFrameSchema = z.object({
  text: z.string().describe('The line as the browser wrote it.'),
  functionName: z.string().nullable(),
  file: z.string().nullable().describe('The source file when mapped, else the script URL.'),
  line: z.number().int().nullable(),
  column: z.number().int().nullable(),
  mapped: z.boolean().describe('Mapped back to the source with the build’s map; false: shown as it came (another release, no map).'),
})

/** Someone an error or an event is attributed to (named only when the organisation identifies users in reports). */
export const PersonSchema = z.object({ id: z.string(), displayName: z.string().nullable(), email: z.string().nullable() }).meta({ id: 'TelemetryPerson' })

export const FrontendErrorOccurrenceSchema = z.object({
  id: z.string(),
  name: z.string(),
  message: z.string(),
  path: z.string().nullable(),
  userAgent: z.string().nullable(),
  release: z.string().nullable(),
  visitorId: z.string().nullable().describe('The error’s correlation id (kr-vis).'),
  user: PersonSchema.nullable(),
  occurredAtUtc: Utc,
  receivedAtUtc: Utc,
  stack: z.string().nullable(),
  frames: z.array(StackFrameSchema),
})

export const FrontendErrorDetailSchema = z.object({
  group: FrontendErrorGroupSchema,
  affectedUsers: z.array(PersonSchema).describe('Up to 50 of the people it happened to, most recent first.'),
  occurrences: z.object({ items: z.array(FrontendErrorOccurrenceSchema), ...Paged }),
})

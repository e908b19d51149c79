import { z } from 'zod'
import { CSP_DISPOSITIONS, CSP_PAGE_SIZE, CSP_PAGE_SIZE_MAX } from '~/lib/admin/csp-reports'
import { pagingParams, sinceParam } from '~/lib/schemas/admin-schema-incidents'

/**
 * Administration › Security › CSP reports: the filters as the API reads them (and the page's GET
 * form sends them; an empty field is no filter), and the JSON shapes of the admin calls.
 */
export const CSP_DIRECTIVE_MAX = 64

const blankIsAbsent = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : typeof v === 'string' ? v.trim().toLowerCase() : v), schema.optional())

export const CspReportFilterSchema = z.object({
  directive: blankIsAbsent(z.string().max(CSP_DIRECTIVE_MAX, `directive is at most ${CSP_DIRECTIVE_MAX} characters.`).regex(/^[a-z-]+$/, 'directive is a directive’s name, e.g. script-src-elem.')),
  since: sinceParam,
  disposition: blankIsAbsent(z.enum(CSP_DISPOSITIONS, { error: `disposition is one of ${CSP_DISPOSITIONS.join(', ')}.` })),
})

export const CspReportListQuerySchema = CspReportFilterSchema.extend(pagingParams(CSP_PAGE_SIZE, CSP_PAGE_SIZE_MAX))
export const CspReportPagingSchema = z.object(pagingParams(CSP_PAGE_SIZE, CSP_PAGE_SIZE_MAX))

const iso = z.string().describe('ISO 8601, UTC.')

export const CspReportGroupSchema = z.object({
  group: z.string().describe('The group’s key, for /api/admin/security/csp-reports/groups/{group}.'),
  directive: z.string(),
  blockedUrl: z.string().describe('Without query or fragment; or inline, eval, data as the browser names them.'),
  count: z.number().int(),
  firstSeenUtc: iso,
  lastSeenUtc: iso,
  sampleDocumentUrl: z.string().nullable(),
  sampleSource: z.string().nullable().describe('file:line:column of the newest report.'),
  dispositions: z.array(z.enum(CSP_DISPOSITIONS)),
}).meta({ id: 'CspReportGroup' })

export const CspUntenantedGroupSchema = z.object({ directive: z.string(), blockedUrl: z.string(), count: z.number().int(), firstSeenUtc: iso, lastSeenUtc: iso })

export const CspReportGroupPageSchema = z.object({
  items: z.array(CspReportGroupSchema),
  page: z.number().int(),
  nextPage: z.number().int().nullable(),
  untenanted: z.array(CspUntenantedGroupSchema).describe('Reports without an organisation (pages drawn for no one signed in), the most frequent groups, counts only.'),
})

export const CspReportEntrySchema = z.object({
  id: z.uuid(),
  directive: z.string(),
  blockedUrl: z.string(),
  documentUrl: z.string().nullable(),
  sourceFile: z.string().nullable(),
  lineNumber: z.number().int().nullable(),
  columnNumber: z.number().int().nullable(),
  disposition: z.enum(CSP_DISPOSITIONS),
  sample: z.string().nullable(),
  userAgent: z.string().nullable(),
  receivedAtUtc: iso,
})

export const CspReportOccurrencePageSchema = z.object({
  group: CspReportGroupSchema,
  items: z.array(CspReportEntrySchema),
  page: z.number().int(),
  nextPage: z.number().int().nullable(),
})

import { z } from 'zod'
import { LOG_LEVELS, LOG_QUERY_MAX, LOG_TAIL_DEFAULT_LINES, LOG_TAIL_MAX_LINES, LOG_UNITS } from '~/lib/admin/logs'

/**
 * `GET /api/admin/logs/tail`'s query (docs/observability.md "Logs"), as the API reads it and the
 * page's filter form sends it. An empty field means no filter.
 */

const blankIsAbsent = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : typeof v === 'string' ? v.trim() : v), schema.optional())

const LINES_ERROR = `lines must be a whole number from 1 to ${LOG_TAIL_MAX_LINES}.`
const BEFORE_ERROR = 'before must be the number of a log line (a whole number from 1).'
const SINCE_ERROR = 'since must be a date and time in ISO 8601 with its offset, e.g. 2026-05-01T09:30:00Z.'
const momentError = (name: string) => `${name} must be a real date and time in ISO 8601 with its offset, e.g. 2026-05-01T09:30:00Z.`
/** A moment with its offset, as ms since the epoch. */
const moment = (error: string) => blankIsAbsent(z.iso.datetime({ offset: true, error }).transform((value) => Date.parse(value)))

export const LogTailQuerySchema = z
  .object({
    unit: blankIsAbsent(z.enum(LOG_UNITS, { error: `unit is one of ${LOG_UNITS.join(', ')}.` })),
    level: blankIsAbsent(z.enum(LOG_LEVELS, { error: `level is one of ${LOG_LEVELS.join(', ')}.` })),
    since: moment(SINCE_ERROR),
    /** An absolute period, both ends included: `since` counts back from the page's drawing, `from` and `to` name the moments. */
    from: moment(momentError('from')),
    to: moment(momentError('to')),
    query: blankIsAbsent(z.string().max(LOG_QUERY_MAX, `query is at most ${LOG_QUERY_MAX} characters.`)),
    lines: blankIsAbsent(z.coerce.number({ error: LINES_ERROR }).int(LINES_ERROR).min(1, LINES_ERROR).max(LOG_TAIL_MAX_LINES, LINES_ERROR)).transform(
      (v) => v ?? LOG_TAIL_DEFAULT_LINES,
    ),
    before: blankIsAbsent(z.coerce.number({ error: BEFORE_ERROR }).int(BEFORE_ERROR).min(1, BEFORE_ERROR).max(Number.MAX_SAFE_INTEGER, BEFORE_ERROR)),
  })
  .refine((query) => query.from === undefined || query.to === undefined || query.from <= query.to, {
    path: ['to'],
    message: 'to must be at or after from: this period ends before it starts.',
  })

export type LogTailQuery = z.output<typeof LogTailQuerySchema>

export const LogLineSchema = z.object({
  seq: z.number().int(),
  timeUtc: z.string(),
  level: z.enum(LOG_LEVELS),
  unit: z.string().nullable(),
  msg: z.string(),
  correlationId: z.string().nullable(),
  visitorId: z.string().nullable(),
  fields: z.record(z.string(), z.unknown()),
}).meta({ id: 'LogLine' })

export const LogTailResponseSchema = z.object({
  lines: z.array(LogLineSchema),
  logFile: z.boolean(),
  heldSinceUtc: z.string().nullable(),
  nextBefore: z.number().int().nullable(),
}).meta({ id: 'LogTail' })

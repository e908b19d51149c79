import { z } from 'zod'
import { ERROR_MAX_PER_SEND, STACK_TRACE_MAX, TELEMETRY_FLUSH_EVENTS } from '~/lib/constants'
import { textProblems } from '~/lib/schemas/text'

/**
 * What the browser sends to /telemetry/* (spec §3 "Telemetry event", "Frontend error event"; spec
 * §7 "Telemetry"). Each event is checked on its own: one that does not fit becomes `null` (zod's
 * catch), is counted as dropped, and never refuses the good events sent with it. A body that is
 * not a batch at all is refused as a whole.
 */

/** Ours: the browser flushes at TELEMETRY_FLUSH_EVENTS (spec §9); a page-hide beacon may carry a re-queued backlog. */
export const TELEMETRY_BATCH_MAX = 100
/** Spec §9 "Error batch": at most 50 per send. */
export const ERROR_BATCH_MAX = ERROR_MAX_PER_SEND
/** Ours: body limits of the calls (413 above). */
export const TELEMETRY_BODY_MAX_BYTES = 64 * 1024
export const ERROR_BODY_MAX_BYTES = 256 * 1024

/** A visitor id (kr-vis, spec §9) or a correlation id that may name a rate-limit counter. */
export const VISITOR_ID = /^[A-Za-z0-9._:-]{8,64}$/

const MAX_PROPERTIES = 50
const Scalar = z.union([z.string().max(1000), z.number(), z.boolean(), z.null()])
/** Flat or one level deep: enough for event properties, and bounded however the body nests. */
const PropertyValue = z.union([Scalar, z.array(Scalar).max(50), z.record(z.string().max(100), Scalar)])
const Properties = z
  .record(z.string().min(1).max(100), PropertyValue)
  .refine((value) => Object.keys(value).length <= MAX_PROPERTIES, `At most ${MAX_PROPERTIES} properties.`)

/** Ours: a time the database can store and a browser's clock can plausibly report. */
const EARLIEST = Date.parse('2000-01-01T00:00:00Z')
const LATEST = Date.parse('2200-01-01T00:00:00Z')
const Timestamp = z.iso
  .datetime({ offset: true })
  .refine((value) => {
    const at = Date.parse(value)
    return at >= EARLIEST && at < LATEST
  }, 'Not a time between 2000 and 2200.')
  .describe('When it happened, ISO 8601 (UTC).')
const CorrelationId = z.string().max(200)

/** The one text rule (app/lib/schemas/text.ts) over an event, which the calls apply per event. */
function textRule(value: object, ctx: z.RefinementCtx): void {
  for (const [path, message] of textProblems(value)) ctx.addIssue({ code: 'custom', message, path: path.split('.') })
}

export const TelemetryEventSchema = z
  .object({
    name: z.string().trim().min(1).max(200).describe('web.<Area>.<What>, e.g. web.Auth.SignedIn (spec §9).'),
    properties: Properties.optional(),
    source: z.literal('web').optional(),
    timestampUtc: Timestamp,
    correlationId: CorrelationId.nullish(),
  })
  .superRefine(textRule)
export type TelemetryEvent = z.output<typeof TelemetryEventSchema>

export const FrontendErrorSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    timestampUtc: Timestamp,
    message: z.string().max(4000),
    stack: z.string().max(STACK_TRACE_MAX).nullish(),
    path: z.string().max(2000).nullish(),
    userAgent: z.string().max(1000).nullish(),
    release: z.string().max(100).nullish(),
    correlationId: CorrelationId.nullish().describe('The visitor id (kr-vis).'),
  })
  .superRefine(textRule)
export type FrontendError = z.output<typeof FrontendErrorSchema>

/** A batch: events that do not fit read as null (dropped, counted); the rest is stored. */
export const TelemetryBatchSchema = z.object({
  source: z.literal('web').optional(),
  events: z
    .array(TelemetryEventSchema.nullable().catch(null))
    .max(TELEMETRY_BATCH_MAX)
    .describe(`At most ${TELEMETRY_BATCH_MAX} (the browser flushes at ${TELEMETRY_FLUSH_EVENTS}). An event that does not fit is dropped and counted; the others are stored.`),
})

export const FrontendErrorBatchSchema = z.object({
  events: z
    .array(FrontendErrorSchema.nullable().catch(null))
    .max(ERROR_BATCH_MAX)
    .describe(`At most ${ERROR_BATCH_MAX}. An event that does not fit is dropped and counted; the others are stored.`),
})

/** The answer of every ingest call: how many events were stored and how many dropped. */
export const IngestAnswerSchema = z.object({ accepted: z.number().int(), dropped: z.number().int() }).meta({ id: 'IngestReceipt' })

import { z } from 'zod'
import { PersonSchema, sinceParam, visitorParam } from './admin-frontend-errors'

/** Administration › Telemetry (issue 15): the filters and answer of `GET /api/admin/telemetry/events`. */

/** Spec §9: 50 a page; `limit=1` is the page's one-row sample on entry (spec §2). */
export const TELEMETRY_EVENTS_PAGE_SIZE = 50
export const TELEMETRY_EVENTS_PAGE_SIZE_MAX = 200
export const TELEMETRY_NAME_FILTER_MAX = 200

export const TelemetryEventFilterSchema = z.object({
  name: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : typeof v === 'string' ? v.trim() : v),
    z.string().max(TELEMETRY_NAME_FILTER_MAX, `name is at most ${TELEMETRY_NAME_FILTER_MAX} characters.`).optional(),
  ),
  since: sinceParam,
  visitor: visitorParam,
})

export const TelemetryEventRowSchema = z.object({
  id: z.string(),
  name: z.string(),
  properties: z.record(z.string(), z.unknown()),
  source: z.string(),
  occurredAtUtc: z.string(),
  receivedAtUtc: z.string(),
  visitorId: z.string().nullable(),
  correlationId: z.string().nullable(),
  user: PersonSchema.nullable(),
})

export const TelemetryEventListSchema = z.object({ items: z.array(TelemetryEventRowSchema), nextCursor: z.string().nullable() })

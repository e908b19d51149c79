import { Hono } from 'hono'
import { z } from 'zod'
import { runAdmin } from '#server/api/admin/run'
import { asTenantReader } from '#server/domain/tenancy/context'
import { collectionSettingsIn } from '#server/domain/observability/collection'
import { listTelemetryEvents } from '#server/domain/observability/events-list'
import { IngestStatsSchema, ingestStats, organisationIngestStats, STATS_DAYS, untenantedIngestStats } from '#server/domain/observability/stats'
import { userStatusProblem } from '#server/domain/auth/sign-in'
import { cursorParam, decodeCursor } from '#server/domain/tenancy/paging'
import { operation } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { optional, wholeNumber } from '#server/http/query'
import { TELEMETRY_EVENTS_PAGE_SIZE, TELEMETRY_EVENTS_PAGE_SIZE_MAX, TelemetryEventFilterSchema, TelemetryEventListSchema } from '~/lib/schemas/admin-telemetry'
import { SIGNED_OUT_COLLECTION } from '~/lib/telemetry-settings'

/**
 * Spec §7 "Telemetry ingest stats": what the telemetry calls (server/api/telemetry.ts) accepted and
 * dropped, and the events themselves; administrators only. Also the one call every page needs:
 * what the browser's batchers may send (`GET /api/telemetry/settings`, read by the root loader).
 */

const TAG = 'Telemetry'

const EventsQuery = TelemetryEventFilterSchema.extend({
  after: cursorParam,
  limit: optional(wholeNumber('limit', TELEMETRY_EVENTS_PAGE_SIZE_MAX)).transform((v) => v ?? TELEMETRY_EVENTS_PAGE_SIZE),
})

const CollectionSchema = z.object({
  usage: z.boolean().describe('Send usage events: Configuration › Telemetry on and Settings › Admin “collect usage telemetry” on.'),
  samplingPercent: z.number().int().describe('The share of visitors (stable per visitor id) that send them.'),
  errors: z.boolean().describe('Send frontend errors: Settings › Admin “collect frontend errors”.'),
})

export const adminTelemetryRoutes = new Hono<BackendEnv>()
  .get(
    '/api/admin/telemetry/stats',
    operation({
      summary: `Telemetry and frontend errors accepted and dropped per day, the last ${STATS_DAYS} days`,
      description:
        'Per UTC day, oldest first: events and errors accepted, and dropped by reason (invalid, rateLimited, tooLarge). `organisation` counts what the organisation’s signed-in people sent; `untenanted` what arrived without any organisation (signed out, or the public fall-back), for the whole instance. A refused request whose events could not be read counts as one.',
      tag: TAG,
      access: 'admin',
      responses: {
        200: { description: 'The counts.', schema: IngestStatsSchema },
        403: 'Not an administrator of the organisation.',
      },
    }),
    async (c) => {
      const { db } = c.get('deps')
      const { days, now } = await runAdmin(c, async (ctx) => ({ days: await organisationIngestStats(ctx), now: ctx.now }))
      // Read after the admin check, outside its transaction: untenanted rows are visible only there.
      const untenanted = await untenantedIngestStats(db, now)
      c.header('cache-control', 'no-store')
      return c.json(ingestStats(days, untenanted, now))
    },
  )
  .get(
    '/api/admin/telemetry/events',
    operation({
      summary: 'The organisation’s usage events, newest first',
      description:
        'Filters: `name` (a prefix, e.g. `web.auth.`), `since` (a day or a time: received from then), `visitor` (a visitor id or correlation id). Keyset paging with `after`, 50 a page by default; `limit=1` is the page’s one-row sample.',
      tag: TAG,
      access: 'admin',
      query: EventsQuery,
      responses: {
        200: { description: 'A page of events; `nextCursor` when another page follows.', schema: TelemetryEventListSchema },
        400: 'A filter or the cursor is not valid: see errors.',
        403: 'Not an administrator of the organisation.',
      },
    }),
    async (c) => {
      const { name, since, visitor, after, limit } = c.req.valid('query')
      const cursor = decodeCursor(after)
      c.header('cache-control', 'no-store')
      return c.json(await runAdmin(c, (ctx) => listTelemetryEvents(ctx, { name, since, visitor }, { after: cursor, limit })))
    },
  )
  .get(
    '/api/telemetry/settings',
    operation({
      summary: 'What this browser’s telemetry and error batchers may send',
      description:
        'For a signed-in member, the organisation’s Configuration › Telemetry (enabled, samplingPercent) and Settings › Admin diagnostics switches; signed out, no usage events and frontend errors by the switch’s default. Read once per page by the root loader.',
      tag: TAG,
      access: 'public',
      responses: { 200: { description: 'The switches.', schema: CollectionSchema } },
    }),
    async (c) => {
      const session = c.get('session')
      c.header('cache-control', 'private, no-store')
      if (!session || session.requiresMfa || userStatusProblem(session.userStatus)) return c.json(SIGNED_OUT_COLLECTION)
      const { db } = c.get('deps')
      return c.json(await asTenantReader(db, session, (tx, opened) => collectionSettingsIn(tx, session.tenantId, opened?.member)))
    },
  )

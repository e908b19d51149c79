import { Hono } from 'hono'
import { runAdmin } from '#server/api/admin/run'
import { IngestStatsSchema, ingestStats, organisationIngestStats, STATS_DAYS, untenantedIngestStats } from '#server/domain/observability/stats'
import { operation } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'

/** Spec §7 "Telemetry ingest stats": what the telemetry calls (server/api/telemetry.ts) accepted and dropped; administrators only. */

export const adminTelemetryRoutes = new Hono<BackendEnv>().get(
  '/api/admin/telemetry/stats',
  operation({
    summary: `Telemetry and frontend errors accepted and dropped per day, the last ${STATS_DAYS} days`,
    description:
      'Per UTC day, oldest first: events and errors accepted, and dropped by reason (invalid, rateLimited, tooLarge). `organisation` counts what the organisation’s signed-in people sent; `untenanted` what arrived without any organisation (signed out, or the public fall-back), for the whole instance. A refused request whose events could not be read counts as one.',
    tag: 'Telemetry',
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

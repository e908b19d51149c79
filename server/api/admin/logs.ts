import { Hono } from 'hono'
import { runAdmin } from '#server/api/admin/run'
import { operation } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { LOG_LEVELS, LOG_TAIL_DEFAULT_LINES, LOG_TAIL_MAX_LINES, LOG_UNITS, type LogTailResponse } from '~/lib/admin/logs'
import { LogTailQuerySchema, LogTailResponseSchema } from '~/lib/schemas/admin-logs'

/**
 * Administration › Logs (docs/observability.md "Logs"): the newest lines of this server's own
 * structured logs, from the logger's in-memory ring. An administrator sees only the lines that
 * name their own organisation; lines that name none (start-up, instance-wide jobs) are shown to
 * nobody here. Secrets never reach the ring (server/http/logger.ts).
 */

const TAG = 'Logs'

/** Spec §7 writes the call `logs/tail` (so /api/logs/tail); the issue /api/admin/logs/tail: both answer the same. */
const tailOperation = () =>
  operation({
    summary: 'The newest log lines of this server about the organisation, newest last',
    description: [
      `Filters: unit (${LOG_UNITS.join(', ')}), level (${LOG_LEVELS.join(', ')}: that level and above), since (ISO 8601 date-time with offset),`,
      'from and to (ISO 8601 date-times with offset, both included: an absolute period; from after to is a 400 on to; with since too, the later of since and from applies),',
      `query (case-insensitive, in the message or any value: a correlation id, a visitor id, a path); lines: how many, 1–${LOG_TAIL_MAX_LINES}, ${LOG_TAIL_DEFAULT_LINES} by default;`,
      'before: only lines written before the line of that seq (the `nextBefore` of the previous answer: the next, older page).',
      'Only the lines this server holds in memory (its last 5,000 lines or 5 MB of every organisation’s), and of those only the ones that name the caller’s organisation.',
      'Several instances: each answers its own lines.',
    ].join(' '),
    tag: TAG,
    access: 'admin',
    query: LogTailQuerySchema,
    responses: {
      200: {
        description:
          '`{ lines, logFile, heldSinceUtc }`: each line with seq, timeUtc, level, unit, msg, correlationId, visitorId and its other fields (secrets removed); `logFile`: whether the server also writes LOG_FILE; `heldSinceUtc`: the oldest line held; `nextBefore`: `before` for the next older page, null when no older line matches.',
        schema: LogTailResponseSchema,
      },
      400: 'A filter is not valid: see errors.',
      403: 'Not an administrator of the organisation.',
    },
  })

export const adminLogRoutes = new Hono<BackendEnv>()

for (const path of ['/api/logs/tail', '/api/admin/logs/tail']) {
  adminLogRoutes.get(path, tailOperation(), async (c) => {
    const query = c.req.valid('query')
    const tenantId = await runAdmin(c, async (ctx) => ctx.actor.tenantId)
    const { config, logRing } = c.get('deps')
    // since and from both bound the period's start: the later one holds.
    const sinceMs = query.since === undefined || query.from === undefined ? (query.since ?? query.from) : Math.max(query.since, query.from)
    const filter = { unit: query.unit, level: query.level, sinceMs, untilMs: query.to, query: query.query }
    c.header('cache-control', 'no-store')
    const page = logRing ? logRing.page(tenantId, filter, query.lines, query.before) : { lines: [], nextBefore: null }
    return c.json({
      lines: page.lines,
      logFile: config.logFile !== undefined,
      heldSinceUtc: logRing?.oldest()?.timeUtc ?? null,
      nextBefore: page.nextBefore,
    } satisfies LogTailResponse)
  })
}

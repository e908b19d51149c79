import { Hono } from 'hono'
import { z } from 'zod'
import { runAdmin } from '#server/api/admin/run'
import { withTenant } from '#server/db/tenancy'
import { diagnosticRuns } from '#server/db/schema-observability'
import { analysisSeries, analysisSummary } from '#server/domain/observability/diagnostics-analysis'
import { claimManualRun, completeRun } from '#server/domain/observability/diagnostics'
import { mergePages, readAttempts, readRun, readRuns, readTracking, type Scoped } from '#server/domain/observability/diagnostics-queries'
import { inScope } from '#server/domain/observability/ingest'
import { cursorParam, decodeCursor } from '#server/domain/tenancy/paging'
import { operation } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { Problem, problems } from '#server/http/problem'
import { optional, wholeNumber } from '#server/http/query'
import { requireSession } from '#server/http/session'
import { blobStoreFor } from '#server/storage/blob-stores'
import { and, eq } from 'drizzle-orm'
import { DIAGNOSTIC_CHECKS, DIAGNOSTICS_PAGE_SIZE, DIAGNOSTICS_PAGE_SIZE_MAX, isRunId } from '~/lib/admin/diagnostics'
import {
  AnalysisSeriesQuerySchema,
  AnalysisSeriesSchema,
  AnalysisSummaryQuerySchema,
  AnalysisSummarySchema,
  DiagnosticAttemptsFilterSchema,
  DiagnosticAttemptsPageSchema,
  DiagnosticRunDetailSchema,
  DiagnosticRunSchema,
  DiagnosticRunsFilterSchema,
  DiagnosticRunsPageSchema,
} from '~/lib/schemas/admin-diagnostics'

/**
 * Spec §7 "Observability and admin data": diagnostics (docs/observability.md "Diagnostics"). The
 * organisation's runs are read in the administrator's tenant transaction; the instance's (the
 * schedule's, no organisation) after it, outside every tenant — the only place row-level security
 * shows them — and shown to every administrator. Administrators only.
 */

const TAG = 'Diagnostics'
const FORBIDDEN = 'Not an administrator of the organisation.'

const paging = {
  after: cursorParam,
  limit: optional(wholeNumber('limit', DIAGNOSTICS_PAGE_SIZE_MAX)).transform((v) => v ?? DIAGNOSTICS_PAGE_SIZE),
}
const RunsQuery = DiagnosticRunsFilterSchema.extend(paging)
const AttemptsQuery = DiagnosticAttemptsFilterSchema.extend(paging)
const IdParam = z.object({ id: z.string().max(100) })

const organisationOf = (tenantId: string): Scoped => ({ tenantId })
const INSTANCE: Scoped = { tenantId: null }

/** A date alone is the whole UTC day: from its start, or until its end. */
function moment(value: string | undefined, end: boolean, field: 'since' | 'until'): Date | undefined {
  if (value === undefined) return undefined
  const at = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z`) : new Date(value)
  // Should the schema let through a moment Date cannot read, it is a 400, never a 500.
  if (Number.isNaN(at.getTime())) throw new Problem(problems.badRequest('Some query parameters are not valid.', { [field]: ['Give a date (YYYY-MM-DD) or a date and time (ISO 8601).'] }))
  return at
}

function noSuchRun(): Problem {
  return new Problem(problems.notFound('There is no such diagnostic run for this organisation or this server.'))
}

export const adminDiagnosticsRoutes = new Hono<BackendEnv>()
  .get(
    '/api/diagnostics',
    operation({
      summary: 'Diagnostic runs, newest first, and the failure tracking of each check',
      description:
        'The organisation’s runs (an administrator pressed “Run checks now”) and the server’s own (scheduled, every DIAGNOSTICS_INTERVAL_MINUTES), merged newest first with keyset paging (`after`, 50 a page by default). Filters: scope (organisation, instance), outcome (running, passed, failed). `tracking`: spec §3 failure tracking per check, for each scope.',
      tag: TAG,
      access: 'admin',
      query: RunsQuery,
      responses: {
        200: { description: 'A page of runs with a summary per check, and the tracking.', schema: DiagnosticRunsPageSchema },
        400: 'A filter or the cursor is not valid: see errors.',
        403: FORBIDDEN,
      },
    }),
    async (c) => {
      const query = c.req.valid('query')
      const after = decodeCursor(query.after)
      const { db } = c.get('deps')
      const tenantId = requireSession(c).tenantId
      const filter = { outcome: query.outcome, after }
      const own = await runAdmin(c, async (ctx) => ({
        runs: query.scope === 'instance' ? [] : await readRuns(ctx.tx, organisationOf(tenantId), filter, query.limit),
        tracking: await readTracking(ctx.tx, organisationOf(tenantId)),
      }))
      // After the admin check, outside its transaction.
      const instance = await inScope(db, null, async (tx) => ({
        runs: query.scope === 'organisation' ? [] : await readRuns(tx, INSTANCE, filter, query.limit),
        tracking: await readTracking(tx, INSTANCE),
      }))
      c.header('cache-control', 'no-store')
      return c.json({ ...mergePages(own.runs, instance.runs, query.limit, (r) => r.startedAtUtc), tracking: { organisation: own.tracking, instance: instance.tracking } })
    },
  )
  .post(
    '/api/diagnostics',
    operation({
      summary: 'Run the checks now for the organisation',
      description: `Runs ${DIAGNOSTIC_CHECKS.join(', ')} side by side (each with a timeout; a failed check is tried up to 3 times), records every attempt and the checks’ failure tracking, and answers the finished run. One run at a time per organisation and at most 20 an hour: 429 otherwise. The run names who asked.`,
      tag: TAG,
      access: 'admin',
      responses: {
        201: { description: 'The finished run, with a summary per check.', schema: DiagnosticRunSchema },
        403: FORBIDDEN,
        429: 'A run is under way, or too many were run in the last hour: see retryAfterSeconds.',
      },
    }),
    async (c) => {
      const { db, config, now } = c.get('deps')
      const tenantId = requireSession(c).tenantId
      const claimed = await runAdmin(c, (ctx) => claimManualRun(ctx, { correlationId: c.get('correlationId') }))
      try {
        await completeRun({ db, config, store: blobStoreFor(config) }, claimed, tenantId, now)
      } catch (error) {
        // Not left "running": the run failed to finish, and says so.
        await withTenant(db, tenantId, (tx) =>
          tx
            .update(diagnosticRuns)
            .set({ outcome: 'failed', finishedAt: now() })
            .where(and(eq(diagnosticRuns.id, claimed.id), eq(diagnosticRuns.tenantId, tenantId))),
        ).catch(() => undefined)
        throw error
      }
      const detail = await runAdmin(c, (ctx) => readRun(ctx.tx, organisationOf(tenantId), claimed.id))
      if (!detail) throw noSuchRun()
      c.header('location', `/api/diagnostics/${detail.run.id}`)
      return c.json(detail.run, 201)
    },
  )
  .get(
    '/api/diagnostics/:id',
    operation({
      summary: 'One diagnostic run with all its attempts',
      description: 'A run of the organisation, or one of the server’s own (readable by every administrator). Attempts in the order they were made.',
      tag: TAG,
      access: 'admin',
      params: IdParam,
      responses: {
        200: { description: 'The run and its attempts (check, attempt, startedAtUtc, durationMs, outcome, message, detail).', schema: DiagnosticRunDetailSchema },
        403: FORBIDDEN,
        404: 'No such run for this organisation or this server.',
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      const tenantId = requireSession(c).tenantId
      const own = await runAdmin(c, (ctx) => (isRunId(id) ? readRun(ctx.tx, organisationOf(tenantId), id) : Promise.resolve(undefined)))
      const found = own ?? (isRunId(id) ? await inScope(c.get('deps').db, null, (tx) => readRun(tx, INSTANCE, id)) : undefined)
      if (!found) throw noSuchRun()
      c.header('cache-control', 'no-store')
      return c.json(found)
    },
  )
  .get(
    '/api/admin/diagnostics-attempts',
    operation({
      summary: 'Diagnostic attempts, newest first',
      description:
        'Every try of every check, the organisation’s and the server’s merged. Filters: check, outcome (passed, failed, skipped), scope (organisation, instance), since and until (ISO dates or times, inclusive; a date alone is the whole UTC day), runId. Keyset paging with `after`, 50 a page by default.',
      tag: TAG,
      access: 'admin',
      query: AttemptsQuery,
      responses: {
        200: { description: 'A page of attempts.', schema: DiagnosticAttemptsPageSchema },
        400: 'A filter or the cursor is not valid: see errors.',
        403: FORBIDDEN,
      },
    }),
    async (c) => {
      const query = c.req.valid('query')
      const since = moment(query.since, false, 'since')
      const until = moment(query.until, true, 'until')
      if (since && until && since > until) throw new Problem(problems.badRequest('The period ends before it starts.', { until: ['until is before since.'] }))
      const filter = { check: query.check, outcome: query.outcome, since, until, runId: query.runId, after: decodeCursor(query.after) }
      const tenantId = requireSession(c).tenantId
      const own = await runAdmin(c, (ctx) => (query.scope === 'instance' ? Promise.resolve([]) : readAttempts(ctx.tx, organisationOf(tenantId), filter, query.limit)))
      const instance = query.scope === 'organisation' ? [] : await inScope(c.get('deps').db, null, (tx) => readAttempts(tx, INSTANCE, filter, query.limit))
      c.header('cache-control', 'no-store')
      return c.json(mergePages(own, instance, query.limit, (a) => a.startedAtUtc))
    },
  )
  .get(
    '/api/admin/diagnostics/analysis',
    operation({
      summary: 'Per check over a window: attempts, failures, failure rate, latency percentiles, last failure, current failures in a row',
      description:
        '`hours` 1–720 (24 by default); `scope` instance (the schedule’s runs, the default) or organisation (runs by the organisation’s administrators). Skipped attempts count as attempts but not in the failure rate or the latencies. Latencies in ms: p50, p95 (continuous percentiles) and max.',
      tag: TAG,
      access: 'admin',
      query: AnalysisSummaryQuerySchema,
      responses: {
        200: { description: 'The summary, every check present.', schema: AnalysisSummarySchema },
        400: 'hours or scope is not valid: see errors.',
        403: FORBIDDEN,
      },
    }),
    async (c) => {
      const { hours, scope } = c.req.valid('query')
      const tenantId = requireSession(c).tenantId
      const result =
        scope === 'organisation'
          ? await runAdmin(c, (ctx) => analysisSummary(ctx.tx, organisationOf(tenantId), hours, ctx.now))
          : await instanceRead(c, (tx, at) => analysisSummary(tx, INSTANCE, hours, at))
      c.header('cache-control', 'no-store')
      return c.json(result)
    },
  )
  .get(
    '/api/admin/diagnostics/analysis/series',
    operation({
      summary: 'Per check and hour (or day): attempts, failures, mean and p95 latency',
      description:
        '`hours` 1–720 (24 by default), `bucket` hour (default) or day (UTC), `check` one check (all by default), `scope` as for the summary. Every bucket of the window is present, oldest first; latencies are null where nothing was measured.',
      tag: TAG,
      access: 'admin',
      query: AnalysisSeriesQuerySchema,
      responses: {
        200: { description: 'The series per check.', schema: AnalysisSeriesSchema },
        400: 'A parameter is not valid: see errors.',
        403: FORBIDDEN,
      },
    }),
    async (c) => {
      const { hours, scope, check, bucket } = c.req.valid('query')
      const tenantId = requireSession(c).tenantId
      const options = { hours, bucket, check }
      const result =
        scope === 'organisation'
          ? await runAdmin(c, (ctx) => analysisSeries(ctx.tx, organisationOf(tenantId), options, ctx.now))
          : await instanceRead(c, (tx, at) => analysisSeries(tx, INSTANCE, options, at))
      c.header('cache-control', 'no-store')
      return c.json(result)
    },
  )

/** The instance's rows: after the admin check, outside its transaction. */
async function instanceRead<T>(c: Parameters<typeof requireSession>[0], work: (tx: Parameters<Parameters<typeof inScope>[2]>[0], now: Date) => Promise<T>): Promise<T> {
  const at = await runAdmin(c, (ctx) => Promise.resolve(ctx.now))
  return inScope(c.get('deps').db, null, (tx) => work(tx, at))
}

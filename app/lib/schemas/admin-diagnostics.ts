import { z } from 'zod'
import {
  ANALYSIS_BUCKETS,
  ANALYSIS_HOURS_DEFAULT,
  ANALYSIS_HOURS_MAX,
  ANALYSIS_HOURS_MIN,
  ANALYSIS_SCOPE_DEFAULT,
  ANALYSIS_SCOPES,
  ATTEMPT_OUTCOMES,
  DIAGNOSTIC_CHECKS,
  RUN_OUTCOMES,
  RUN_SCOPES,
  RUN_TRIGGERS,
} from '~/lib/admin/diagnostics'

/**
 * Diagnostics (docs/observability.md "Diagnostics"): the queries the API reads and the answers it
 * publishes (OpenAPI), shared by the backend and the screens. An empty query field means no filter.
 */

const blankIsAbsent = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : typeof v === 'string' ? v.trim() : v), schema.optional())

const isoMoment = z.union([z.iso.date(), z.iso.datetime({ offset: true })], { error: 'Give a date (YYYY-MM-DD) or a date and time (ISO 8601).' })

export const DiagnosticRunsFilterSchema = z.object({
  scope: blankIsAbsent(z.enum(RUN_SCOPES, { error: `scope is one of ${RUN_SCOPES.join(', ')}.` })),
  outcome: blankIsAbsent(z.enum(RUN_OUTCOMES, { error: `outcome is one of ${RUN_OUTCOMES.join(', ')}.` })),
})

export const DiagnosticAttemptsFilterSchema = z.object({
  check: blankIsAbsent(z.enum(DIAGNOSTIC_CHECKS, { error: `check is one of ${DIAGNOSTIC_CHECKS.join(', ')}.` })),
  outcome: blankIsAbsent(z.enum(ATTEMPT_OUTCOMES, { error: `outcome is one of ${ATTEMPT_OUTCOMES.join(', ')}.` })),
  scope: blankIsAbsent(z.enum(RUN_SCOPES, { error: `scope is one of ${RUN_SCOPES.join(', ')}.` })),
  since: blankIsAbsent(isoMoment),
  until: blankIsAbsent(isoMoment),
  runId: blankIsAbsent(z.uuid({ error: 'runId is a run’s id.' })),
})

const hoursMessage = `hours must be a whole number from ${ANALYSIS_HOURS_MIN} to ${ANALYSIS_HOURS_MAX}.`
const hours = blankIsAbsent(z.coerce.number({ error: hoursMessage }).int(hoursMessage).min(ANALYSIS_HOURS_MIN, hoursMessage).max(ANALYSIS_HOURS_MAX, hoursMessage)).transform(
  (v) => v ?? ANALYSIS_HOURS_DEFAULT,
)
const analysisScope = blankIsAbsent(z.enum(ANALYSIS_SCOPES, { error: `scope is one of ${ANALYSIS_SCOPES.join(', ')}.` })).transform((v) => v ?? ANALYSIS_SCOPE_DEFAULT)

export const AnalysisSummaryQuerySchema = z.object({ hours, scope: analysisScope })

export const AnalysisSeriesQuerySchema = z.object({
  hours,
  scope: analysisScope,
  check: blankIsAbsent(z.enum(DIAGNOSTIC_CHECKS, { error: `check is one of ${DIAGNOSTIC_CHECKS.join(', ')}.` })),
  bucket: blankIsAbsent(z.enum(ANALYSIS_BUCKETS, { error: `bucket is one of ${ANALYSIS_BUCKETS.join(', ')}.` })).transform((v) => v ?? 'hour'),
})

// The answers, as published.

const utc = z.string().describe('ISO 8601, UTC.')
const scope = z.enum(RUN_SCOPES).describe('organisation: the caller’s organisation; instance: the server’s own scheduled health, shown to every administrator.')

const CheckResultSchema = z.object({
  check: z.enum(DIAGNOSTIC_CHECKS),
  outcome: z.enum(ATTEMPT_OUTCOMES),
  attempts: z.number().int(),
  durationMs: z.number().int(),
  message: z.string(),
}).meta({ id: 'DiagnosticCheckResult' })

export const DiagnosticRunSchema = z.object({
  id: z.string(),
  scope,
  trigger: z.enum(RUN_TRIGGERS),
  outcome: z.enum(RUN_OUTCOMES),
  startedAtUtc: utc,
  finishedAtUtc: utc.nullable(),
  requestedBy: z.object({ id: z.string(), displayName: z.string().nullable() }).nullable(),
  correlationId: z.string().nullable(),
  instanceId: z.string().nullable(),
  checks: z.array(CheckResultSchema).describe('Per check: the last attempt’s outcome and message, and how many attempts it took.'),
}).meta({ id: 'DiagnosticRun' })

export const DiagnosticAttemptSchema = z.object({
  id: z.string(),
  runId: z.string(),
  scope,
  check: z.enum(DIAGNOSTIC_CHECKS),
  attempt: z.number().int(),
  startedAtUtc: utc,
  durationMs: z.number().int(),
  outcome: z.enum(ATTEMPT_OUTCOMES),
  message: z.string(),
  detail: z.record(z.string(), z.unknown()),
}).meta({ id: 'DiagnosticAttempt' })

const CheckStateSchema = z.object({
  check: z.enum(DIAGNOSTIC_CHECKS),
  scope,
  failureCount: z.number().int(),
  consecutiveFailures: z.number().int(),
  lastFailureUtc: utc.nullable(),
  lastSuccessUtc: utc.nullable(),
  lastError: z.string().nullable(),
  lastOutcome: z.enum(ATTEMPT_OUTCOMES).nullable(),
  lastMessage: z.string().nullable(),
  lastRunAtUtc: utc.nullable(),
}).meta({ id: 'DiagnosticCheckState' })

export const DiagnosticRunsPageSchema = z.object({
  items: z.array(DiagnosticRunSchema),
  nextCursor: z.string().nullable(),
  tracking: z.object({ organisation: z.array(CheckStateSchema), instance: z.array(CheckStateSchema) }).describe('Spec §3 failure tracking per check, every check present.'),
})

export const DiagnosticRunDetailSchema = z.object({ run: DiagnosticRunSchema, attempts: z.array(DiagnosticAttemptSchema) })

export const DiagnosticAttemptsPageSchema = z.object({ items: z.array(DiagnosticAttemptSchema), nextCursor: z.string().nullable() })

const latency = z.number().nullable()

export const AnalysisSummarySchema = z.object({
  hours: z.number().int(),
  scope: z.enum(ANALYSIS_SCOPES),
  fromUtc: utc,
  toUtc: utc,
  checks: z.array(
    z.object({
      check: z.enum(DIAGNOSTIC_CHECKS),
      attempts: z.number().int(),
      failures: z.number().int(),
      skipped: z.number().int(),
      failureRate: z.number(),
      p50LatencyMs: latency,
      p95LatencyMs: latency,
      maxLatencyMs: latency,
      lastFailureUtc: utc.nullable(),
      lastError: z.string().nullable(),
      consecutiveFailures: z.number().int(),
    }),
  ),
})

export const AnalysisSeriesSchema = z.object({
  hours: z.number().int(),
  bucket: z.enum(ANALYSIS_BUCKETS),
  scope: z.enum(ANALYSIS_SCOPES),
  fromUtc: utc,
  toUtc: utc,
  checks: z.array(
    z.object({
      check: z.enum(DIAGNOSTIC_CHECKS),
      points: z.array(z.object({ bucketStartUtc: utc, attempts: z.number().int(), failures: z.number().int(), meanLatencyMs: latency, p95LatencyMs: latency })),
    }),
  ),
})

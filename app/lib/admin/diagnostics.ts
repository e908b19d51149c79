import { isUuid } from '~/lib/schemas/uuid'
/**
 * Administration › Diagnostics (docs/observability.md "Diagnostics"): the JSON shapes of
 * `/api/diagnostics*`, `/api/admin/diagnostics-attempts` and the analysis, shared by the backend
 * and the screens, and the pages' filters in the URL.
 */

export const DIAGNOSTIC_CHECKS = ['database', 'mail', 'storage', 'redis', 'hub', 'disk', 'clock'] as const
export type DiagnosticCheck = (typeof DIAGNOSTIC_CHECKS)[number]

export const DIAGNOSTIC_CHECK_LABELS: Record<DiagnosticCheck, string> = {
  database: 'Database',
  mail: 'Mail',
  storage: 'File storage',
  redis: 'Redis',
  hub: 'Realtime hub',
  disk: 'Disk space',
  clock: 'Clock',
}

/** What each check does, in a sentence the page shows. */
export const DIAGNOSTIC_CHECK_DESCRIPTIONS: Record<DiagnosticCheck, string> = {
  database: 'A round trip to the database, and how many migrations it has.',
  mail: 'Connects and signs in to the mail server the organisation’s mail goes through (no message is sent).',
  storage: 'Writes a small file to the file store, reads it back and removes it.',
  redis: 'Pings Redis, when the server is set up to use it (see the operations guide).',
  hub: 'Whether the realtime hub runs in this server, and its connections.',
  disk: 'Free space where the server keeps its data.',
  clock: 'The difference between the database’s clock and the server’s.',
}

/** The outcome of one attempt, and of a check within a run (its last attempt). */
export const ATTEMPT_OUTCOMES = ['passed', 'failed', 'skipped'] as const
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number]

export const RUN_OUTCOMES = ['running', 'passed', 'failed'] as const
export type RunOutcome = (typeof RUN_OUTCOMES)[number]

export const RUN_TRIGGERS = ['manual', 'schedule'] as const
export type RunTrigger = (typeof RUN_TRIGGERS)[number]

/** Whose run: the organisation's (an administrator pressed "Run checks now") or the instance's (the schedule). */
export const RUN_SCOPES = ['organisation', 'instance'] as const
export type RunScope = (typeof RUN_SCOPES)[number]

export const OUTCOME_LABELS: Record<AttemptOutcome | RunOutcome, string> = { passed: 'Passed', failed: 'Failed', skipped: 'Skipped', running: 'Running' }
export const OUTCOME_TONES: Record<AttemptOutcome | RunOutcome, 'neutral' | 'info' | 'success' | 'critical'> = {
  passed: 'success',
  failed: 'critical',
  skipped: 'neutral',
  running: 'info',
}
export const TRIGGER_LABELS: Record<RunTrigger, string> = { manual: 'Run by an administrator', schedule: 'Scheduled' }
export const SCOPE_LABELS: Record<RunScope, string> = { organisation: 'This organisation', instance: 'This server' }

/** 50 a page (spec §9). */
export const DIAGNOSTICS_PAGE_SIZE = 50
export const DIAGNOSTICS_PAGE_SIZE_MAX = 200

/** The analysis window: 1 hour to 30 days, a day by default. */
export const ANALYSIS_HOURS_MIN = 1
export const ANALYSIS_HOURS_MAX = 720
export const ANALYSIS_HOURS_DEFAULT = 24
export const ANALYSIS_BUCKETS = ['hour', 'day'] as const
export type AnalysisBucket = (typeof ANALYSIS_BUCKETS)[number]
/** Whose attempts the analysis reads: the schedule's (the instance, every 15 minutes) by default, or the organisation's own runs. */
export const ANALYSIS_SCOPES = RUN_SCOPES
export type AnalysisScope = RunScope
export const ANALYSIS_SCOPE_DEFAULT: AnalysisScope = 'instance'

/** One check of a run: its last attempt's outcome and message, and how many tries it took. */
export type DiagnosticCheckResult = {
  check: DiagnosticCheck
  outcome: AttemptOutcome
  attempts: number
  /** The last attempt's time. */
  durationMs: number
  message: string
}

export type DiagnosticRun = {
  id: string
  scope: RunScope
  trigger: RunTrigger
  outcome: RunOutcome
  startedAtUtc: string
  finishedAtUtc: string | null
  requestedBy: { id: string; displayName: string | null } | null
  correlationId: string | null
  instanceId: string | null
  checks: DiagnosticCheckResult[]
}

export type DiagnosticAttempt = {
  id: string
  runId: string
  scope: RunScope
  check: DiagnosticCheck
  attempt: number
  startedAtUtc: string
  durationMs: number
  outcome: AttemptOutcome
  message: string
  detail: Record<string, unknown>
}

/** Spec §3 "Failure tracking" of one check, with its latest outcome. */
export type DiagnosticCheckState = {
  check: DiagnosticCheck
  scope: RunScope
  failureCount: number
  consecutiveFailures: number
  lastFailureUtc: string | null
  lastSuccessUtc: string | null
  lastError: string | null
  /** The check's outcome in the scope's latest finished run; null before any run. */
  lastOutcome: AttemptOutcome | null
  lastMessage: string | null
  lastRunAtUtc: string | null
}

export type DiagnosticRunsPage = {
  items: DiagnosticRun[]
  nextCursor: string | null
  tracking: { organisation: DiagnosticCheckState[]; instance: DiagnosticCheckState[] }
}

export type DiagnosticRunDetail = { run: DiagnosticRun; attempts: DiagnosticAttempt[] }

export type DiagnosticAttemptsPage = { items: DiagnosticAttempt[]; nextCursor: string | null }

export type AnalysisSummaryRow = {
  check: DiagnosticCheck
  attempts: number
  failures: number
  skipped: number
  /** failures / (attempts − skipped), 0 when nothing ran. */
  failureRate: number
  p50LatencyMs: number | null
  p95LatencyMs: number | null
  maxLatencyMs: number | null
  lastFailureUtc: string | null
  lastError: string | null
  consecutiveFailures: number
}

export type AnalysisSummary = { hours: number; scope: AnalysisScope; fromUtc: string; toUtc: string; checks: AnalysisSummaryRow[] }

export type AnalysisPoint = { bucketStartUtc: string; attempts: number; failures: number; meanLatencyMs: number | null; p95LatencyMs: number | null }

export type AnalysisSeries = {
  hours: number
  bucket: AnalysisBucket
  scope: AnalysisScope
  fromUtc: string
  toUtc: string
  checks: Array<{ check: DiagnosticCheck; points: AnalysisPoint[] }>
}

/** /admin/diagnostics's URL: the runs list's filters and position. */
export type DiagnosticsQuery = { scope: RunScope | null; outcome: RunOutcome | null; after: string | null; back: string | null }

function oneOf<T extends string>(values: readonly T[], value: string | null): T | null {
  return value !== null && (values as readonly string[]).includes(value) ? (value as T) : null
}

/** An unknown value is no filter: a hand-edited link still opens the page. */
export function diagnosticsQuery(url: URL): DiagnosticsQuery {
  const p = url.searchParams
  return { scope: oneOf(RUN_SCOPES, p.get('scope')), outcome: oneOf(RUN_OUTCOMES, p.get('outcome')), after: p.get('after') || null, back: p.get('back') || null }
}

export function diagnosticsHref(query: Partial<DiagnosticsQuery>): string {
  const params = new URLSearchParams()
  if (query.scope) params.set('scope', query.scope)
  if (query.outcome) params.set('outcome', query.outcome)
  if (query.after) params.set('after', query.after)
  if (query.back) params.set('back', query.back)
  const search = params.toString()
  return `/admin/diagnostics${search ? `?${search}` : ''}`
}

/** /admin/diagnostics/analysis's URL: the window and whose runs. */
export type AnalysisQuery = { hours: number; scope: AnalysisScope }

export function analysisQuery(url: URL): AnalysisQuery {
  const raw = Number(url.searchParams.get('hours'))
  const hours = Number.isInteger(raw) && raw >= ANALYSIS_HOURS_MIN && raw <= ANALYSIS_HOURS_MAX ? raw : ANALYSIS_HOURS_DEFAULT
  return { hours, scope: oneOf(ANALYSIS_SCOPES, url.searchParams.get('scope')) ?? ANALYSIS_SCOPE_DEFAULT }
}

/** Hourly bars up to three days; a longer window is drawn per day. */
export function bucketFor(hours: number): AnalysisBucket {
  return hours > 72 ? 'day' : 'hour'
}

export function isRunId(value: string | undefined): value is string {
  return value !== undefined && isUuid(value)
}

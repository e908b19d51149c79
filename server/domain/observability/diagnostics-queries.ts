import { and, asc, desc, eq, gte, inArray, isNull, lte, ne, sql, type SQL } from 'drizzle-orm'
import type { Tx } from '#server/db/client'
import { users } from '#server/db/schema'
import { diagnosticAttempts, diagnosticChecks, diagnosticRuns } from '#server/db/schema-observability'
import { encodeCursor, type Cursor } from '#server/domain/tenancy/paging'
import {
  DIAGNOSTIC_CHECKS,
  type AttemptOutcome,
  type DiagnosticAttempt,
  type DiagnosticCheck,
  type DiagnosticCheckResult,
  type DiagnosticCheckState,
  type DiagnosticRun,
  type RunOutcome,
  type RunScope,
  type RunTrigger,
} from '~/lib/admin/diagnostics'

/**
 * Reading diagnostics (docs/observability.md "Diagnostics"). Each function reads one scope in the
 * transaction it is given: the organisation's rows in the administrator's tenant transaction, the
 * instance's (no organisation) in one without a tenant — row-level security shows each only there,
 * and every query names its scope as well. The API merges the two.
 */

export type Scoped = { tenantId: string | null }

const scopeOf = (tenantId: string | null): RunScope => (tenantId ? 'organisation' : 'instance')
const iso = (value: Date | string | null | undefined): string | null => (value ? new Date(value).toISOString() : null)

function runScope(s: Scoped): SQL {
  return s.tenantId ? eq(diagnosticRuns.tenantId, s.tenantId) : isNull(diagnosticRuns.tenantId)
}

function attemptScope(s: Scoped): SQL {
  return s.tenantId ? eq(diagnosticAttempts.tenantId, s.tenantId) : isNull(diagnosticAttempts.tenantId)
}

/** Keyset position, newest first: rows strictly after the cursor's (time, id). */
function before(time: typeof diagnosticRuns.startedAt | typeof diagnosticAttempts.startedAt, id: typeof diagnosticRuns.id | typeof diagnosticAttempts.id, cursor: Cursor): SQL {
  return sql`(${time}, ${id}) < (${cursor.createdAt.toISOString()}::timestamptz, ${cursor.id}::uuid)`
}

type AttemptRow = typeof diagnosticAttempts.$inferSelect

function checkResults(attempts: readonly Pick<AttemptRow, 'check' | 'attempt' | 'outcome' | 'durationMs' | 'message'>[]): DiagnosticCheckResult[] {
  const last = new Map<string, DiagnosticCheckResult>()
  for (const a of attempts) {
    const seen = last.get(a.check)
    if (!seen || a.attempt > seen.attempts) last.set(a.check, { check: a.check as DiagnosticCheck, outcome: a.outcome as AttemptOutcome, attempts: a.attempt, durationMs: a.durationMs, message: a.message })
  }
  return DIAGNOSTIC_CHECKS.flatMap((check) => {
    const result = last.get(check)
    return result ? [result] : []
  })
}

async function attemptsOfRuns(tx: Tx, s: Scoped, runIds: string[]) {
  if (runIds.length === 0) return []
  const a = diagnosticAttempts
  return tx
    .select({ runId: a.runId, check: a.check, attempt: a.attempt, outcome: a.outcome, durationMs: a.durationMs, message: a.message })
    .from(a)
    .where(and(attemptScope(s), inArray(a.runId, runIds)))
}

async function runsWhere(tx: Tx, s: Scoped, where: SQL | undefined, limit: number): Promise<DiagnosticRun[]> {
  const r = diagnosticRuns
  const rows = await tx
    .select({
      id: r.id,
      trigger: r.trigger,
      outcome: r.outcome,
      startedAt: r.startedAt,
      finishedAt: r.finishedAt,
      requestedBy: r.requestedBy,
      requesterName: users.displayName,
      correlationId: r.correlationId,
      instanceId: r.instanceId,
    })
    .from(r)
    .leftJoin(users, eq(users.id, r.requestedBy))
    .where(and(runScope(s), where))
    .orderBy(desc(r.startedAt), desc(r.id))
    .limit(limit)
  const attempts = await attemptsOfRuns(
    tx,
    s,
    rows.map((row) => row.id),
  )
  return rows.map((row) => ({
    id: row.id,
    scope: scopeOf(s.tenantId),
    trigger: row.trigger as RunTrigger,
    outcome: row.outcome as RunOutcome,
    startedAtUtc: row.startedAt.toISOString(),
    finishedAtUtc: iso(row.finishedAt),
    requestedBy: row.requestedBy ? { id: row.requestedBy, displayName: row.requesterName } : null,
    correlationId: row.correlationId,
    instanceId: row.instanceId,
    checks: checkResults(attempts.filter((a) => a.runId === row.id)),
  }))
}

/** Up to `limit` + 1 runs of the scope, newest first, after the cursor. */
export function readRuns(tx: Tx, s: Scoped, filter: { outcome?: RunOutcome | undefined; after?: Cursor | undefined }, limit: number): Promise<DiagnosticRun[]> {
  const r = diagnosticRuns
  return runsWhere(tx, s, and(filter.outcome ? eq(r.outcome, filter.outcome) : undefined, filter.after ? before(r.startedAt, r.id, filter.after) : undefined), limit + 1)
}

export async function readRun(tx: Tx, s: Scoped, id: string): Promise<{ run: DiagnosticRun; attempts: DiagnosticAttempt[] } | undefined> {
  const [run] = await runsWhere(tx, s, eq(diagnosticRuns.id, id), 1)
  if (!run) return undefined
  const a = diagnosticAttempts
  const rows = await tx
    .select()
    .from(a)
    .where(and(attemptScope(s), eq(a.runId, id)))
    .orderBy(asc(a.startedAt), asc(a.check), asc(a.attempt))
  return { run, attempts: rows.map((row) => attemptOf(row)) }
}

function attemptOf(row: AttemptRow): DiagnosticAttempt {
  return {
    id: row.id,
    runId: row.runId,
    scope: scopeOf(row.tenantId),
    check: row.check as DiagnosticCheck,
    attempt: row.attempt,
    startedAtUtc: row.startedAt.toISOString(),
    durationMs: row.durationMs,
    outcome: row.outcome as AttemptOutcome,
    message: row.message,
    detail: row.detail,
  }
}

export type AttemptFilter = {
  check?: DiagnosticCheck | undefined
  outcome?: AttemptOutcome | undefined
  since?: Date | undefined
  until?: Date | undefined
  runId?: string | undefined
  after?: Cursor | undefined
}

/** Up to `limit` + 1 attempts of the scope, newest first, after the cursor. */
export async function readAttempts(tx: Tx, s: Scoped, filter: AttemptFilter, limit: number): Promise<DiagnosticAttempt[]> {
  const a = diagnosticAttempts
  const rows = await tx
    .select()
    .from(a)
    .where(
      and(
        attemptScope(s),
        filter.check ? eq(a.check, filter.check) : undefined,
        filter.outcome ? eq(a.outcome, filter.outcome) : undefined,
        filter.since ? gte(a.startedAt, filter.since) : undefined,
        filter.until ? lte(a.startedAt, filter.until) : undefined,
        filter.runId ? eq(a.runId, filter.runId) : undefined,
        filter.after ? before(a.startedAt, a.id, filter.after) : undefined,
      ),
    )
    .orderBy(desc(a.startedAt), desc(a.id))
    .limit(limit + 1)
  return rows.map((row) => attemptOf(row))
}

/** Two scopes' pages (each up to limit + 1 rows, newest first) as one page. */
export function mergePages<T extends { id: string }>(a: readonly T[], b: readonly T[], limit: number, timeOf: (row: T) => string): { items: T[]; nextCursor: string | null } {
  const all = [...a, ...b].sort((x, y) => {
    const byTime = timeOf(y).localeCompare(timeOf(x))
    return byTime !== 0 ? byTime : y.id.localeCompare(x.id)
  })
  const items = all.slice(0, limit)
  const last = items.at(-1)
  return { items, nextCursor: all.length > limit && last ? encodeCursor({ createdAt: new Date(timeOf(last)), id: last.id }) : null }
}

/** Spec §3 failure tracking of every check of the scope, with its outcome in the scope's latest finished run. */
export async function readTracking(tx: Tx, s: Scoped): Promise<DiagnosticCheckState[]> {
  const c = diagnosticChecks
  const rows = await tx
    .select()
    .from(c)
    .where(s.tenantId ? eq(c.tenantId, s.tenantId) : isNull(c.tenantId))
  const [latest] = await runsWhere(tx, s, ne(diagnosticRuns.outcome, 'running'), 1)
  return DIAGNOSTIC_CHECKS.map((check) => {
    const row = rows.find((r) => r.check === check)
    const last = latest?.checks.find((r) => r.check === check)
    return {
      check,
      scope: scopeOf(s.tenantId),
      failureCount: row?.failureCount ?? 0,
      consecutiveFailures: row?.consecutiveFailures ?? 0,
      lastFailureUtc: iso(row?.lastFailureUtc),
      lastSuccessUtc: iso(row?.lastSuccessUtc),
      lastError: row?.lastError ?? null,
      lastOutcome: last?.outcome ?? null,
      lastMessage: last?.message ?? null,
      lastRunAtUtc: last ? (latest?.finishedAtUtc ?? latest?.startedAtUtc ?? null) : null,
    }
  })
}

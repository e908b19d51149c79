import { hostname } from 'node:os'
import { and, count, eq, gt, isNull, min, sql } from 'drizzle-orm'
import type { Database, Tx } from '#server/db/client'
import { diagnosticAttempts, diagnosticChecks, diagnosticRuns } from '#server/db/schema-observability'
import type { DomainContext } from '#server/domain/tenancy/context'
import { Problem } from '#server/http/problem'
import { DIAGNOSTIC_CHECK_LABELS, DIAGNOSTIC_CHECKS, type AttemptOutcome, type DiagnosticCheck } from '~/lib/admin/diagnostics'
import { CHECK_TIMEOUT_MS, CHECKS, type CheckDeps, type CheckScope, type CheckVerdict } from './diagnostics-checks'
import { inScope } from './ingest'

/**
 * Diagnostic runs (docs/observability.md "Diagnostics"): every check of diagnostics-checks.ts, side
 * by side, each attempt timed and bounded by a timeout; a failed check is tried again (at most
 * MAX_ATTEMPTS, short back-off) and every try is an attempt row. No transaction is open while the
 * checks run (a slow mail server must not hold a database connection): a run is claimed in one
 * transaction, and its attempts, its outcome and the checks' failure tracking (spec §3) are
 * stored together in another.
 */

export const MAX_ATTEMPTS = 3
/** Waits before the second and third attempt. */
export const RETRY_BACKOFF_MS = [250, 1000] as const
/** One manual run at a time per organisation, and at most this many an hour. */
export const MANUAL_RUNS_PER_HOUR = 20
/** A run still "running" after this long was cut short (a restart): it no longer blocks the next. */
export const RUN_STALE_MS = 5 * 60_000

/** Which server process ran a run (several instances may share one database). */
export const INSTANCE_ID = `${hostname()}:${process.pid}`

export type AttemptRecord = {
  check: DiagnosticCheck
  attempt: number
  startedAt: Date
  durationMs: number
  outcome: AttemptOutcome
  message: string
  detail: Record<string, unknown>
}

export type RunOptions = {
  timeoutMs?: number
  backoffMs?: readonly number[]
  /** Stand-ins for some checks (unit tests). */
  checks?: Partial<Record<DiagnosticCheck, () => Promise<CheckVerdict> | CheckVerdict>>
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms)
  })
  try {
    return await Promise.race([work, timeout])
  } finally {
    clearTimeout(timer)
  }
}

async function attemptOnce(check: DiagnosticCheck, run: () => Promise<CheckVerdict> | CheckVerdict, timeoutMs: number): Promise<CheckVerdict> {
  const label = DIAGNOSTIC_CHECK_LABELS[check]
  try {
    const verdict = await withTimeout(Promise.resolve().then(run), timeoutMs)
    if (verdict === 'timeout') return { outcome: 'failed', message: `The ${label.toLowerCase()} check did not finish within ${Math.round(timeoutMs / 1000)} s.`, detail: { timeoutMs } }
    return verdict
  } catch (error) {
    return {
      outcome: 'failed',
      message: `The ${label.toLowerCase()} check could not run: ${error instanceof Error ? error.message : String(error)}`,
      detail: { error: (error as { code?: unknown } | null)?.code ?? null },
    }
  }
}

/**
 * Runs every check for `scope`, concurrently; answers every attempt. `start` is the run's time on
 * the backend's clock: attempts are placed after it by how long the run has taken.
 */
export async function runChecks(deps: CheckDeps, scope: CheckScope, start: Date, options: RunOptions = {}): Promise<AttemptRecord[]> {
  const timeoutMs = options.timeoutMs ?? CHECK_TIMEOUT_MS
  const backoff = options.backoffMs ?? RETRY_BACKOFF_MS
  const origin = performance.now()
  const perCheck = await Promise.all(
    DIAGNOSTIC_CHECKS.map(async (check) => {
      const run = options.checks?.[check] ?? (() => CHECKS[check](deps, scope))
      const attempts: AttemptRecord[] = []
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const began = performance.now()
        const verdict = await attemptOnce(check, run, timeoutMs)
        attempts.push({
          check,
          attempt,
          startedAt: new Date(start.getTime() + Math.round(began - origin)),
          durationMs: Math.max(0, Math.round(performance.now() - began)),
          outcome: verdict.outcome,
          message: verdict.message,
          detail: verdict.detail ?? {},
        })
        if (verdict.outcome !== 'failed' || attempt === MAX_ATTEMPTS) break
        await sleep(backoff[attempt - 1] ?? backoff.at(-1) ?? 0)
      }
      return attempts
    }),
  )
  return perCheck.flat()
}

/** The last attempt of each check. */
export function finalAttempts(attempts: readonly AttemptRecord[]): Map<DiagnosticCheck, AttemptRecord> {
  const last = new Map<DiagnosticCheck, AttemptRecord>()
  for (const a of attempts) {
    const seen = last.get(a.check)
    if (!seen || a.attempt > seen.attempt) last.set(a.check, a)
  }
  return last
}

/** A run fails when any check's last attempt failed. */
export function runOutcome(attempts: readonly AttemptRecord[]): 'passed' | 'failed' {
  for (const a of finalAttempts(attempts).values()) if (a.outcome === 'failed') return 'failed'
  return 'passed'
}

function scopeWhere(tenantId: string | null) {
  return tenantId ? eq(diagnosticRuns.tenantId, tenantId) : isNull(diagnosticRuns.tenantId)
}

/** Spec §3: a failed check counts, and in a row; a passed one ends the row; a skipped one leaves it as it was. */
async function track(tx: Tx, tenantId: string | null, attempt: AttemptRecord, at: Date): Promise<void> {
  const t = diagnosticChecks
  if (attempt.outcome === 'skipped') {
    await tx.insert(t).values({ tenantId, check: attempt.check }).onConflictDoNothing()
  } else if (attempt.outcome === 'passed') {
    await tx
      .insert(t)
      .values({ tenantId, check: attempt.check, lastSuccessUtc: at })
      .onConflictDoUpdate({ target: [t.tenantId, t.check], set: { consecutiveFailures: 0, lastSuccessUtc: at } })
  } else {
    await tx
      .insert(t)
      .values({ tenantId, check: attempt.check, failureCount: 1, consecutiveFailures: 1, lastFailureUtc: at, lastError: attempt.message })
      .onConflictDoUpdate({
        target: [t.tenantId, t.check],
        set: { failureCount: sql`${t.failureCount} + 1`, consecutiveFailures: sql`${t.consecutiveFailures} + 1`, lastFailureUtc: at, lastError: attempt.message },
      })
  }
}

/** Stores a finished run: its attempts, its outcome and the checks' failure tracking, in one transaction of its scope. */
export async function recordRun(db: Database, runId: string, tenantId: string | null, attempts: readonly AttemptRecord[], finishedAt: Date): Promise<'passed' | 'failed'> {
  const outcome = runOutcome(attempts)
  await inScope(db, tenantId, async (tx) => {
    if (attempts.length > 0) {
      await tx.insert(diagnosticAttempts).values(
        attempts.map((a) => ({ tenantId, runId, check: a.check, attempt: a.attempt, startedAt: a.startedAt, durationMs: a.durationMs, outcome: a.outcome, message: a.message, detail: a.detail })),
      )
    }
    for (const attempt of finalAttempts(attempts).values()) await track(tx, tenantId, attempt, finishedAt)
    await tx.update(diagnosticRuns).set({ outcome, finishedAt }).where(and(eq(diagnosticRuns.id, runId), scopeWhere(tenantId)))
  })
  return outcome
}

async function lock(tx: Tx, key: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`)
}

function tooMany(detail: string, seconds: number): Problem {
  return new Problem({ status: 429, title: 'Too many requests', detail, code: 'KR_THROTTLED', retryAfterSeconds: Math.max(1, Math.ceil(seconds)) })
}

/**
 * An administrator's "Run checks now": one at a time per organisation and MANUAL_RUNS_PER_HOUR an
 * hour (each run connects to the mail server and writes to storage), else 429. Claimed under an
 * advisory lock, so two presses at once cannot both start. The run row names who asked (requested_by)
 * and the request's correlation id.
 */
export async function claimManualRun(ctx: DomainContext, meta: { correlationId: string }): Promise<{ id: string; startedAt: Date }> {
  const { tx, actor, now } = ctx
  const r = diagnosticRuns
  await lock(tx, `diagnostics-manual:${actor.tenantId}`)
  const mine = and(eq(r.tenantId, actor.tenantId), eq(r.trigger, 'manual'))
  const [running] = await tx
    .select({ n: count() })
    .from(r)
    .where(and(mine, eq(r.outcome, 'running'), gt(r.startedAt, new Date(now.getTime() - RUN_STALE_MS))))
  if ((running?.n ?? 0) > 0) throw tooMany('The checks are already running for this organisation. Wait for them to finish, then look at the result.', 5)
  const hourAgo = new Date(now.getTime() - 60 * 60_000)
  const [recent] = await tx
    .select({ n: count(), oldest: min(r.startedAt) })
    .from(r)
    .where(and(mine, gt(r.startedAt, hourAgo)))
  if ((recent?.n ?? 0) >= MANUAL_RUNS_PER_HOUR) {
    const oldest = recent?.oldest ? new Date(recent.oldest).getTime() : now.getTime()
    const seconds = (oldest + 60 * 60_000 - now.getTime()) / 1000
    throw tooMany(`The checks were run ${MANUAL_RUNS_PER_HOUR} times in the last hour. Try again in ${Math.max(1, Math.ceil(seconds / 60))} minutes.`, seconds)
  }
  const [row] = await tx
    .insert(r)
    .values({ tenantId: actor.tenantId, trigger: 'manual', requestedBy: actor.userId, startedAt: now, correlationId: meta.correlationId, instanceId: INSTANCE_ID })
    .returning({ id: r.id, startedAt: r.startedAt })
  if (!row) throw new Error('the run was not stored')
  return row
}

/**
 * The schedule's claim of the instance's run: at most one per `intervalMs` across every instance
 * sharing the database. Under an advisory lock, the last scheduled run's start decides; a run
 * started within 90 % of the interval means another instance (or this one) already did it.
 */
export async function claimScheduledRun(db: Database, now: Date, intervalMs: number): Promise<{ id: string; startedAt: Date } | undefined> {
  return inScope(db, null, async (tx) => {
    const r = diagnosticRuns
    await lock(tx, 'diagnostics-schedule')
    const [last] = await tx
      .select({ at: sql<string | Date | null>`max(${r.startedAt})` })
      .from(r)
      .where(and(isNull(r.tenantId), eq(r.trigger, 'schedule')))
    if (last?.at && new Date(last.at).getTime() > now.getTime() - intervalMs * 0.9) return undefined
    const [row] = await tx.insert(r).values({ tenantId: null, trigger: 'schedule', startedAt: now, instanceId: INSTANCE_ID }).returning({ id: r.id, startedAt: r.startedAt })
    return row
  })
}

/** Runs the checks of a claimed run and stores the result. */
export async function completeRun(deps: CheckDeps, run: { id: string; startedAt: Date }, tenantId: string | null, finishedAt: () => Date, options: RunOptions = {}) {
  const attempts = await runChecks(deps, { tenantId }, run.startedAt, options)
  // Never before the last attempt ended (a frozen or slow clock would put it there).
  const lastEnd = Math.max(run.startedAt.getTime(), ...attempts.map((a) => a.startedAt.getTime() + a.durationMs))
  const outcome = await recordRun(deps.db, run.id, tenantId, attempts, new Date(Math.max(finishedAt().getTime(), lastEnd)))
  return { outcome, attempts }
}

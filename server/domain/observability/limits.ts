import type { Database } from '#server/db/client'
import { ClockedRateLimiter, type LimitRule } from '#server/domain/auth/rate-limiter'
import { limitKey } from '#server/domain/auth/limits'
import { Problem } from '#server/http/problem'
import type { IngestKind } from './ingest'

const MINUTE_S = 60

/**
 * Ingest limits, on the same shared counters as sign-in and mail (docs/decisions/005,
 * `rate_limits`), so every instance sees them. One request is one point. A browser flushes
 * telemetry at most every 5 s or 40 events and errors every 3 s (spec §9): a visitor far past that
 * is a loop or a script. The address limit is wide, for offices behind one address.
 */
export const INGEST_LIMITS = {
  /** Telemetry batches of one visitor (kr-vis, else the events' correlation id). */
  eventsVisitor: { prefix: 'telemetry-visitor', points: 60, windowSeconds: MINUTE_S },
  /** Error batches of one visitor. */
  errorsVisitor: { prefix: 'errors-visitor', points: 30, windowSeconds: MINUTE_S },
  /** Every ingest call from one client address, both kinds together. */
  address: { prefix: 'telemetry-address', points: 600, windowSeconds: MINUTE_S },
} as const satisfies Record<string, LimitRule>

type IngestLimiters = { [K in keyof typeof INGEST_LIMITS]: ClockedRateLimiter }

const byDatabase = new WeakMap<Database, IngestLimiters>()

function limitersOf(db: Database): IngestLimiters {
  let limiters = byDatabase.get(db)
  if (!limiters) {
    const entries = Object.entries(INGEST_LIMITS).map(([name, rule]) => [name, new ClockedRateLimiter(db, rule)])
    limiters = Object.fromEntries(entries) as IngestLimiters
    byDatabase.set(db, limiters)
  }
  return limiters
}

/** Counts one call from the address; the seconds to wait when it went over, else 0. */
export async function hitAddressLimit(db: Database, address: string, now: Date): Promise<number> {
  return (await limitersOf(db).address.hit(limitKey(address), { now })).wait
}

/** Counts one batch of the visitor; the seconds to wait when it went over, else 0. */
export async function hitVisitorLimit(db: Database, kind: IngestKind, visitorId: string, now: Date): Promise<number> {
  const limiter = kind === 'events' ? limitersOf(db).eventsVisitor : limitersOf(db).errorsVisitor
  return (await limiter.hit(limitKey(visitorId), { now })).wait
}

export function ingestThrottled(seconds: number): Problem {
  return new Problem({
    status: 429,
    title: 'Too many requests',
    detail: `Too much telemetry from this browser or address. Send again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
    code: 'KR_THROTTLED',
    retryAfterSeconds: seconds,
  })
}

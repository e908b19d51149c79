import { and, eq, gt, isNull, lt, or, sql } from 'drizzle-orm'
import { RateLimiterDrizzle, RateLimiterRes } from 'rate-limiter-flexible'
import type { Database } from '#server/db/client'
import { rateLimits } from '#server/db/schema'

export { RateLimiterRes }

export type LimitRule = {
  /** Names the counter in the shared table (`<prefix>:<key>`). */
  prefix: string
  /** How many points the window allows; one more is refused. */
  points: number
  windowSeconds: number
  /** Once refused, the key stays refused this long (0: until the window ends). */
  blockSeconds?: number
}

/** Every call names the backend's time, so tests move it and every instance agrees on it. */
export type ClockOptions = { now: Date }

type Row = { key: string; points: number; expire: Date | null }
type Stored = Row & { now: Date }

/**
 * rate-limiter-flexible's RateLimiterDrizzle (atomic upsert counters in our `rate_limits` table,
 * through our Database handle on PGlite and PostgreSQL alike), with one change: time comes from
 * the caller's `now`, never from Date.now(). The backend's clock is injected so that tests move
 * it; a limiter reading the wall clock would disagree with every other expiry in the backend.
 * The library keeps its rules: points, windows, blocking on the first consume past the limit.
 */
export class ClockedRateLimiter extends RateLimiterDrizzle {
  readonly #db: Database

  constructor(db: Database, rule: LimitRule) {
    super({
      storeClient: db,
      schema: rateLimits,
      keyPrefix: rule.prefix,
      points: rule.points,
      duration: rule.windowSeconds,
      blockDuration: rule.blockSeconds ?? 0,
      // The library's clean-up runs on a timer and the wall clock; purgeExpired below does it on
      // the backend's clock, with no timer left behind when a database closes.
      clearExpiredByTimeout: false,
    })
    this.#db = db
  }

  /** Seconds until `key` may try again, or 0 when it is not over its limit. */
  async secondsLocked(key: string, clock: ClockOptions): Promise<number> {
    const res = (await this.get(key, clock)) as RateLimiterRes | null
    if (!res || res.consumedPoints <= this.points) return 0
    return secondsOf(res)
  }

  /**
   * Counts one point for `key`. Returns 0 when allowed, or the seconds to wait when this point
   * went over the limit (the library then blocks the key for blockSeconds).
   */
  async hit(key: string, clock: ClockOptions): Promise<{ wait: number; consumed: number }> {
    await purgeExpired(this.#db, clock.now)
    try {
      const res = await this.consume(key, 1, clock)
      return { wait: 0, consumed: res.consumedPoints }
    } catch (error) {
      if (error instanceof RateLimiterRes) return { wait: secondsOf(error), consumed: error.consumedPoints }
      throw error
    }
  }

  async clear(key: string): Promise<void> {
    await this.delete(key)
  }

  // ---- the library's store hooks, with the caller's clock ----

  async _upsert(rlKey: string, points: number, msDuration: number, forceExpire = false, options?: Partial<ClockOptions>): Promise<Stored> {
    const now = clockOf(options)
    const newExpire = msDuration > 0 ? new Date(now.getTime() + msDuration) : null
    const expired = sql`${rateLimits.expire} <= ${sql.param(now, rateLimits.expire)}`
    const nextExpire = sql.param(newExpire, rateLimits.expire)
    const [row] = await this.#db
      .insert(rateLimits)
      .values({ key: rlKey, points, expire: newExpire })
      .onConflictDoUpdate({
        target: rateLimits.key,
        set: forceExpire
          ? { points, expire: newExpire }
          : {
              points: sql`case when ${expired} then ${points} else ${rateLimits.points} + ${points} end`,
              expire: sql`case when ${expired} then ${nextExpire} else ${rateLimits.expire} end`,
            },
      })
      .returning()
    if (!row) throw new Error('rate limit counter not stored')
    return { ...row, now }
  }

  async _get(rlKey: string, options?: Partial<ClockOptions>): Promise<Stored | null> {
    const now = clockOf(options)
    const [row] = await this.#db
      .select()
      .from(rateLimits)
      .where(and(eq(rateLimits.key, rlKey), or(gt(rateLimits.expire, now), isNull(rateLimits.expire))))
      .limit(1)
    return row ? { ...row, now } : null
  }

  _getRateLimiterRes(_rlKey: string, changedPoints: number, doc: Stored): RateLimiterRes {
    const msBeforeNext = doc.expire ? Math.max(doc.expire.getTime() - doc.now.getTime(), 0) : -1
    return new RateLimiterRes(Math.max(this.points - doc.points, 0), msBeforeNext, doc.points, doc.points === changedPoints)
  }

  /** The library blocks a key from here without passing the caller's options on: hand it the clock. */
  _afterConsume(resolve: unknown, reject: unknown, rlKey: string, changedPoints: number, stored: Stored, options: Partial<ClockOptions> = {}): void {
    const parent = RateLimiterDrizzle.prototype as unknown as { _afterConsume: (...args: unknown[]) => void }
    parent._afterConsume.call(this, resolve, reject, rlKey, changedPoints, stored, { now: stored.now, ...options })
  }
}

/** How often counters whose window has ended are deleted (they count as absent anyway). */
export const PURGE_EVERY_MS = 10 * 60_000
const lastPurge = new WeakMap<Database, number>()

/** Deletes ended counters at most every PURGE_EVERY_MS, from whichever call counts next. */
async function purgeExpired(db: Database, now: Date): Promise<void> {
  const last = lastPurge.get(db)
  if (last !== undefined && now.getTime() - last < PURGE_EVERY_MS) return
  lastPurge.set(db, now.getTime())
  await db.delete(rateLimits).where(lt(rateLimits.expire, now))
}

function clockOf(options: Partial<ClockOptions> | undefined): Date {
  if (!options?.now) throw new Error('rate limiter called without the backend clock')
  return options.now
}

function secondsOf(res: RateLimiterRes): number {
  return Math.max(1, Math.ceil(res.msBeforeNext / 1000))
}

import type { Database } from '#server/db/client'
import { ClockedRateLimiter, type LimitRule } from './rate-limiter'

const MINUTE_S = 60
const HOUR_S = 60 * MINUTE_S

/**
 * Every limit of the sign-in and mail-sending calls, in one place (docs/decisions/005). A real
 * person never meets them; a script does. `points` is what the library allows in the window: the
 * attempt after the last allowed one is refused (for failures: the fifth failure locks when 4 pass).
 */
export const LIMITS = {
  /** Wrong passwords for one account from one client: 5 in 15 minutes lock that pair for 15 minutes. */
  signInPair: { prefix: 'signin-pair', points: 5 - 1, windowSeconds: 15 * MINUTE_S, blockSeconds: 15 * MINUTE_S },
  /** Failures from one client across accounts (password spraying): 30 in 15 minutes. */
  signInAddress: { prefix: 'signin-address', points: 30 - 1, windowSeconds: 15 * MINUTE_S, blockSeconds: 15 * MINUTE_S },
  /** Failures for one account from everywhere: 50 in an hour lock it for an hour. */
  signInAccount: { prefix: 'signin-account', points: 50 - 1, windowSeconds: HOUR_S, blockSeconds: HOUR_S },
  /** The growing delay of the account as a whole (see ACCOUNT_BACKOFF); set with block(). */
  signInDelay: { prefix: 'signin-delay', points: 0, windowSeconds: MINUTE_S },
  /** Wrong second-factor codes of one account (whoever sends them already knows the password). */
  mfa: { prefix: 'mfa', points: 5 - 1, windowSeconds: 15 * MINUTE_S, blockSeconds: 15 * MINUTE_S },
  /** Wrong current passwords on the change-password form of one account. */
  passwordSet: { prefix: 'password-set', points: 5 - 1, windowSeconds: 15 * MINUTE_S, blockSeconds: 15 * MINUTE_S },
  /**
   * Mails of one kind to one address: 5 an hour (room for a person who asks again while the first
   * mail is on its way), counted whether or not the address has an account.
   */
  mailAddress: { prefix: 'mail-address', points: 5, windowSeconds: HOUR_S },
  /** Mail-sending calls from one client, all kinds together: 20 an hour. */
  mailClient: { prefix: 'mail-client', points: 20, windowSeconds: HOUR_S },
} as const satisfies Record<string, LimitRule>

/**
 * OWASP's account-wide back-off: past FREE failures in the hour (from any clients), each failure
 * makes everyone wait before the next attempt on the account, doubling from 1 s up to MAX.
 * A guesser spread over many addresses gets a few dozen tries an hour; the owner waits a minute
 * at worst, instead of being locked out by anyone who knows the address.
 */
export const ACCOUNT_BACKOFF = { freeFailures: 10, maxDelaySeconds: 60 } as const

export function backoffSeconds(failuresInHour: number): number {
  const over = failuresInHour - ACCOUNT_BACKOFF.freeFailures
  if (over <= 0) return 0
  return Math.min(2 ** (over - 1), ACCOUNT_BACKOFF.maxDelaySeconds)
}

export type Limiters = { [K in keyof typeof LIMITS]: ClockedRateLimiter }

const byDatabase = new WeakMap<Database, Limiters>()

/** The limiters of one database (one set per backend: they hold no state but the handle). */
export function limitersFor(db: Database): Limiters {
  let limiters = byDatabase.get(db)
  if (!limiters) {
    const entries = Object.entries(LIMITS).map(([name, rule]) => [name, new ClockedRateLimiter(db, rule)])
    limiters = Object.fromEntries(entries) as Limiters
    byDatabase.set(db, limiters)
  }
  return limiters
}

/** Keys are case-insensitive e-mail addresses and client addresses. */
export function limitKey(...parts: string[]): string {
  return parts.map((p) => p.trim().toLowerCase()).join('|')
}

import type { Database } from '#server/db/client'
import { limitKey } from '#server/domain/auth/limits'
import { ClockedRateLimiter, type LimitRule } from '#server/domain/auth/rate-limiter'
import { Problem } from '#server/http/problem'

const HOUR_S = 60 * 60

/**
 * Guessing invite codes (docs/admin/invites.md): 10 wrong codes in an hour, per account and per
 * client address, lock that account or address out of code claims for the hour (the tenth wrong
 * code answers 429). On the shared rate limiter (docs/decisions/005), so every instance agrees.
 * An 8-character code of 29 symbols has 5·10¹¹ values: 10 guesses an hour find nothing.
 */
export const CODE_LIMITS = {
  account: { prefix: 'invite-code-account', points: 10 - 1, windowSeconds: HOUR_S, blockSeconds: HOUR_S },
  address: { prefix: 'invite-code-address', points: 10 - 1, windowSeconds: HOUR_S, blockSeconds: HOUR_S },
} as const satisfies Record<string, LimitRule>

type CodeLimiters = { account: ClockedRateLimiter; address: ClockedRateLimiter }

const byDatabase = new WeakMap<Database, CodeLimiters>()

function limiters(db: Database): CodeLimiters {
  let found = byDatabase.get(db)
  if (!found) {
    found = { account: new ClockedRateLimiter(db, CODE_LIMITS.account), address: new ClockedRateLimiter(db, CODE_LIMITS.address) }
    byDatabase.set(db, found)
  }
  return found
}

export type CodeCaller = { userId: string; ip: string }

function tooManyCodes(seconds: number): Problem {
  const minutes = Math.max(1, Math.ceil(seconds / 60))
  return new Problem({
    status: 429,
    title: 'Too many attempts',
    detail: `Too many wrong invite codes. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    code: 'KR_THROTTLED',
    remediation: 'Check the code with the person who gave it to you, or open the invitation link instead.',
    retryAfterSeconds: seconds,
  })
}

/** Refuses with 429 while the account or the address is locked out of code claims. */
export async function codeGuessWait(db: Database, caller: CodeCaller, now: Date): Promise<void> {
  const l = limiters(db)
  const waits = await Promise.all([l.account.secondsLocked(limitKey(caller.userId), { now }), l.address.secondsLocked(limitKey(caller.ip), { now })])
  const wait = Math.max(...waits)
  if (wait > 0) throw tooManyCodes(wait)
}

/** Counts a wrong code; throws 429 when this one reached the limit. */
export async function recordWrongCode(db: Database, caller: CodeCaller, now: Date): Promise<void> {
  const l = limiters(db)
  const account = await l.account.hit(limitKey(caller.userId), { now })
  const address = await l.address.hit(limitKey(caller.ip), { now })
  const wait = Math.max(account.wait, address.wait)
  if (wait > 0) throw tooManyCodes(wait)
}

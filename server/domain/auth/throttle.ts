import type { Database } from '#server/db/client'
import { Problem } from '#server/http/problem'
import { backoffSeconds, limitersFor, limitKey } from './limits'

/**
 * Failed sign-in throttling, on the shared rate limiter (docs/decisions/005). Wrong passwords lock
 * the account only for the client that sent them; the account as a whole slows down (a growing
 * delay) and locks only after far more failures; a client spraying many accounts locks itself.
 */
export type SignInKeys = { email: string; ip: string }

export function throttled(seconds: number): Problem {
  const minutes = Math.ceil(seconds / 60)
  const wait = seconds < 60 ? `${seconds} second${seconds === 1 ? '' : 's'}` : `${minutes} minute${minutes === 1 ? '' : 's'}`
  return new Problem({
    status: 429,
    title: 'Too many attempts',
    detail: `Too many failed sign-in attempts. Try again in ${wait}.`,
    code: 'KR_THROTTLED',
    retryAfterSeconds: seconds,
  })
}

/** Seconds until this client may try this account again, or 0. */
export async function signInWait(db: Database, keys: SignInKeys, now: Date): Promise<number> {
  const l = limitersFor(db)
  const clock = { now }
  const waits = await Promise.all([
    l.signInPair.secondsLocked(limitKey(keys.email, keys.ip), clock),
    l.signInAddress.secondsLocked(limitKey(keys.ip), clock),
    l.signInAccount.secondsLocked(limitKey(keys.email), clock),
    l.signInDelay.secondsLocked(limitKey(keys.email), clock),
  ])
  return Math.max(...waits)
}

export type LockedBy = 'account-client' | 'address' | 'account'

/** Counts a failed sign-in everywhere it counts; says what it locked, and for how long. */
export async function recordSignInFailure(db: Database, keys: SignInKeys, now: Date): Promise<{ lockedBy: LockedBy; wait: number } | undefined> {
  const l = limitersFor(db)
  const clock = { now }
  const address = await l.signInAddress.hit(limitKey(keys.ip), clock)
  const pair = await l.signInPair.hit(limitKey(keys.email, keys.ip), clock)
  const account = await l.signInAccount.hit(limitKey(keys.email), clock)
  const delay = backoffSeconds(account.consumed)
  if (delay > 0 && account.wait === 0) await l.signInDelay.block(limitKey(keys.email), delay, clock)
  if (pair.wait > 0) return { lockedBy: 'account-client', wait: pair.wait }
  if (address.wait > 0) return { lockedBy: 'address', wait: address.wait }
  if (account.wait > 0) return { lockedBy: 'account', wait: account.wait }
  return undefined
}

/** A correct password forgets this client's failures for the account. */
export async function clearSignInFailures(db: Database, keys: SignInKeys): Promise<void> {
  await limitersFor(db).signInPair.clear(limitKey(keys.email, keys.ip))
}

/** Guesses at a signed-in account's secrets (second factor, current password): per account. */
export type GuessKind = 'mfa' | 'passwordSet'

export function guessWait(db: Database, kind: GuessKind, userId: string, now: Date): Promise<number> {
  return limitersFor(db)[kind].secondsLocked(userId, { now })
}

/** Counts a wrong guess; returns the seconds of the lock when this guess caused one, else 0. */
export async function recordWrongGuess(db: Database, kind: GuessKind, userId: string, now: Date): Promise<number> {
  return (await limitersFor(db)[kind].hit(userId, { now })).wait
}

export async function clearWrongGuesses(db: Database, kind: GuessKind, userId: string): Promise<void> {
  await limitersFor(db)[kind].clear(userId)
}

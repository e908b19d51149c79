import { eq, sql } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { loginThrottles } from '#server/db/schema'

/**
 * Failed sign-in throttling per account and per address. Counters live in the database, so every
 * instance sees the same ones. An account locks after 5 failures within 15 minutes; an address
 * after 30 (many accounts tried from one place).
 */
export const THROTTLE_RULES = {
  account: { maxFailures: 5, windowMs: 15 * 60_000, lockMs: 15 * 60_000 },
  address: { maxFailures: 30, windowMs: 15 * 60_000, lockMs: 15 * 60_000 },
} as const

export type ThrottleKind = keyof typeof THROTTLE_RULES

export function throttleKey(kind: ThrottleKind, value: string): string {
  return `${kind}:${value.trim().toLowerCase()}`
}

/** Seconds until the key may try again, or 0. */
export async function lockedFor(db: Database, key: string, now: Date): Promise<number> {
  const [row] = await db.select({ lockedUntil: loginThrottles.lockedUntil }).from(loginThrottles).where(eq(loginThrottles.key, key))
  if (!row?.lockedUntil || row.lockedUntil <= now) return 0
  return Math.ceil((row.lockedUntil.getTime() - now.getTime()) / 1000)
}

/** Counts a failure; returns true when this failure locked the key. */
export async function recordFailure(db: Database, kind: ThrottleKind, key: string, now: Date): Promise<boolean> {
  const rule = THROTTLE_RULES[kind]
  const windowStart = new Date(now.getTime() - rule.windowMs)
  const [row] = await db
    .insert(loginThrottles)
    .values({ key, failures: 1, windowStartedAt: now })
    .onConflictDoUpdate({
      target: loginThrottles.key,
      set: {
        failures: sql`case when ${loginThrottles.windowStartedAt} < ${windowStart} then 1 else ${loginThrottles.failures} + 1 end`,
        windowStartedAt: sql`case when ${loginThrottles.windowStartedAt} < ${windowStart} then ${now} else ${loginThrottles.windowStartedAt} end`,
      },
    })
    .returning({ failures: loginThrottles.failures })
  if (!row || row.failures < rule.maxFailures) return false
  await db
    .update(loginThrottles)
    .set({ lockedUntil: new Date(now.getTime() + rule.lockMs), failures: 0, windowStartedAt: now })
    .where(eq(loginThrottles.key, key))
  return true
}

export async function clearFailures(db: Database, key: string): Promise<void> {
  await db.delete(loginThrottles).where(eq(loginThrottles.key, key))
}

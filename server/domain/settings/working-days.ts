import { eq } from 'drizzle-orm'
import { tenants } from '#server/db/schema'
import type { DomainContext } from '#server/domain/tenancy/context'

/**
 * Working days of an organisation (issue 14, /settings/site): the ISO weekdays work happens on
 * (1 Monday … 7 Sunday, Monday to Friday by default), counted in UTC. Due dates given as a number
 * of days (review steps of doc-control workflows) count only these.
 */

export const DEFAULT_WORKING_DAYS: readonly number[] = [1, 2, 3, 4, 5]

const DAY_MS = 24 * 60 * 60_000

/** The ISO weekday (1 Monday … 7 Sunday) of an instant, in UTC. */
export function isoWeekday(at: Date): number {
  return at.getUTCDay() === 0 ? 7 : at.getUTCDay()
}

/** Whether an instant falls on one of the working days (UTC). */
export function isWorkingDay(at: Date, workingDays: readonly number[] = DEFAULT_WORKING_DAYS): boolean {
  return workingDays.includes(isoWeekday(at))
}

/** A usable set of working days: whole numbers 1 to 7, at least one; anything else is the default. */
export function normaliseWorkingDays(days: unknown): number[] {
  if (!Array.isArray(days)) return [...DEFAULT_WORKING_DAYS]
  const valid = [...new Set(days.filter((d): d is number => Number.isInteger(d) && d >= 1 && d <= 7))].sort((a, b) => a - b)
  return valid.length > 0 ? valid : [...DEFAULT_WORKING_DAYS]
}

/**
 * `days` working days after `from`, at the same time of day: with Monday to Friday, Friday 10:00
 * + 1 is Monday 10:00, and Saturday 10:00 + 1 is Monday 10:00. Zero days is `from`.
 */
export function addWorkingDays(from: Date, days: number, workingDays: readonly number[] = DEFAULT_WORKING_DAYS): Date {
  if (!Number.isInteger(days) || days < 0) throw new RangeError(`addWorkingDays: ${days} is not a whole number of days`)
  const working = normaliseWorkingDays(workingDays)
  let at = from.getTime()
  let left = days
  while (left > 0) {
    at += DAY_MS
    if (isWorkingDay(new Date(at), working)) left--
  }
  return new Date(at)
}

// One read per transaction: a workflow computes several due dates in one call.
const cache = new WeakMap<object, Promise<number[]>>()

/** The organisation's working days, read once per transaction. */
export function organisationWorkingDays(ctx: DomainContext): Promise<number[]> {
  let days = cache.get(ctx.tx)
  if (!days) {
    days = ctx.tx
      .select({ workingDays: tenants.workingDays })
      .from(tenants)
      .where(eq(tenants.id, ctx.actor.tenantId))
      .then(([row]) => normaliseWorkingDays(row?.workingDays))
    cache.set(ctx.tx, days)
  }
  return days
}

/** `days` of the organisation's working days after now: the due date of a step that takes that long. */
export async function dueAfterWorkingDays(ctx: DomainContext, days: number): Promise<Date> {
  return addWorkingDays(ctx.now, days, await organisationWorkingDays(ctx))
}

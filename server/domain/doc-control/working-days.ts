/**
 * Working days for review deadlines (docs/doc-control.md "Due dates"): Monday to Friday, counted
 * in UTC. Public holidays are not known to the portal (they differ per country and per project),
 * so a deadline that falls on one is simply a working day early.
 */

const DAY_MS = 24 * 60 * 60_000

/** The hourly reminder job mails a reviewer once when their task is due within this time (the day before due). */
export const REMINDER_LEAD_MS = DAY_MS

/** Saturday and Sunday (UTC) are not working days. */
export function isWorkingDay(at: Date): boolean {
  const day = at.getUTCDay()
  return day !== 0 && day !== 6
}

/**
 * `days` working days after `from`, at the same time of day: Friday 10:00 + 1 is Monday 10:00, and
 * a start at the weekend counts from Monday (Saturday 10:00 + 1 is Monday 10:00). Zero days is `from`.
 */
export function addWorkingDays(from: Date, days: number): Date {
  if (!Number.isInteger(days) || days < 0) throw new RangeError(`addWorkingDays: ${days} is not a whole number of days`)
  let at = from.getTime()
  let left = days
  while (left > 0) {
    at += DAY_MS
    if (isWorkingDay(new Date(at))) left--
  }
  return new Date(at)
}

/** The end of a calendar day (YYYY-MM-DD, UTC): a due date given as a day is due at its last moment. */
export function endOfDay(date: string): Date {
  return new Date(`${date}T23:59:59.999Z`)
}

/** The calendar day (YYYY-MM-DD, UTC) of an instant. */
export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10)
}

/** Due before now, and so overdue while still pending. */
export function isOverdue(dueAt: Date, now: Date): boolean {
  return dueAt.getTime() < now.getTime()
}

/** Whether the day-before-due reminder is owed now: due within REMINDER_LEAD_MS (or already past). */
export function reminderDue(dueAt: Date, now: Date): boolean {
  return dueAt.getTime() - REMINDER_LEAD_MS <= now.getTime()
}

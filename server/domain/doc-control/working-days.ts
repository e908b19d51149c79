/**
 * Working days for review deadlines (docs/doc-control.md "Due dates"): the organisation's working
 * days (Monday to Friday by default), counted in UTC. Public holidays are not known to the portal
 * (they differ per country and per project), so a deadline that falls on one is simply a working
 * day early.
 */

const DAY_MS = 24 * 60 * 60_000

/** The hourly reminder job mails a reviewer once when their task is due within this time (the day before due). */
export const REMINDER_LEAD_MS = DAY_MS

/**
 * Due dates count the organisation's working days (issue 14, /settings/site; Monday to Friday
 * unless its administrators chose others): server/domain/settings/working-days.ts.
 */
export { addWorkingDays, dueAfterWorkingDays, isWorkingDay } from '#server/domain/settings/working-days'

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

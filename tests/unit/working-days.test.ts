import { expect, test } from 'vitest'
import { addWorkingDays, dayOf, endOfDay, isOverdue, isWorkingDay, reminderDue } from '#server/domain/doc-control/working-days'

/** server/domain/doc-control/working-days.ts: review deadlines count Monday to Friday (UTC). */

const at = (iso: string) => new Date(iso)

test('Monday to Friday are working days, Saturday and Sunday are not', () => {
  // 2026-11-16 is a Monday.
  const week = ['16', '17', '18', '19', '20', '21', '22'].map((d) => isWorkingDay(at(`2026-11-${d}T12:00:00Z`)))
  expect(week).toEqual([true, true, true, true, true, false, false])
})

test('adding working days skips the weekend and keeps the time of day', () => {
  expect(addWorkingDays(at('2026-11-16T09:30:00Z'), 1).toISOString()).toBe('2026-11-17T09:30:00.000Z')
  expect(addWorkingDays(at('2026-11-16T09:30:00Z'), 4).toISOString()).toBe('2026-11-20T09:30:00.000Z')
  // Friday + 1 is Monday; + 5 is the next Friday.
  expect(addWorkingDays(at('2026-11-20T10:00:00Z'), 1).toISOString()).toBe('2026-11-23T10:00:00.000Z')
  expect(addWorkingDays(at('2026-11-20T10:00:00Z'), 5).toISOString()).toBe('2026-11-27T10:00:00.000Z')
  // Two weeks of working days are fourteen calendar days.
  expect(addWorkingDays(at('2026-11-18T08:00:00Z'), 10).toISOString()).toBe('2026-12-02T08:00:00.000Z')
})

test('a start at the weekend counts from Monday', () => {
  expect(addWorkingDays(at('2026-11-21T10:00:00Z'), 1).toISOString()).toBe('2026-11-23T10:00:00.000Z')
  expect(addWorkingDays(at('2026-11-22T23:00:00Z'), 1).toISOString()).toBe('2026-11-23T23:00:00.000Z')
  expect(addWorkingDays(at('2026-11-22T23:00:00Z'), 2).toISOString()).toBe('2026-11-24T23:00:00.000Z')
})

test('zero days is the start itself; fractions and negative days are refused', () => {
  expect(addWorkingDays(at('2026-11-21T10:00:00Z'), 0).toISOString()).toBe('2026-11-21T10:00:00.000Z')
  expect(() => addWorkingDays(at('2026-11-21T10:00:00Z'), -1)).toThrow(RangeError)
  expect(() => addWorkingDays(at('2026-11-21T10:00:00Z'), 1.5)).toThrow(RangeError)
})

test('a due day ends at its last moment; overdue is strictly after the due time', () => {
  expect(endOfDay('2026-12-01').toISOString()).toBe('2026-12-01T23:59:59.999Z')
  expect(dayOf(at('2026-12-01T23:59:59.999Z'))).toBe('2026-12-01')
  const due = at('2026-12-01T12:00:00Z')
  expect(isOverdue(due, at('2026-12-01T12:00:00Z'))).toBe(false)
  expect(isOverdue(due, at('2026-12-01T12:00:00.001Z'))).toBe(true)
})

test('the reminder is owed from one day before due', () => {
  const due = at('2026-12-02T12:00:00Z')
  expect(reminderDue(due, at('2026-12-01T11:59:59Z'))).toBe(false)
  expect(reminderDue(due, at('2026-12-01T12:00:00Z'))).toBe(true)
  expect(reminderDue(due, at('2026-12-03T12:00:00Z'))).toBe(true)
})

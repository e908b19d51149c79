import { expect, test } from 'vitest'
import { formatDate, formatDateTime, formatNumber, preferredLocale } from '~/lib/format'

test('the locale comes from Accept-Language, first supported tag first, en-GB otherwise', () => {
  expect(preferredLocale('de-DE,de;q=0.9,en;q=0.8')).toBe('de-DE')
  expect(preferredLocale('*')).toBe('en-GB')
  expect(preferredLocale('')).toBe('en-GB')
  expect(preferredLocale(null)).toBe('en-GB')
  expect(preferredLocale('not a tag!!, fr-FR')).toBe('fr-FR')
})

test('a moment shows in the locale, in UTC, saying so', () => {
  expect(formatDateTime('2026-11-22T09:14:00Z', 'en-GB')).toBe('22 Nov 2026, 09:14 UTC')
  expect(formatDateTime('2026-11-22T09:14:00Z', 'en-US')).toMatch(/^Nov 22, 2026, 09:14 (AM )?UTC$/)
})

test('a calendar date never shifts with the time zone', () => {
  expect(formatDate('2026-01-01', 'en-GB')).toBe('1 Jan 2026')
  expect(formatDate('2026-12-31', 'de-DE')).toBe('31.12.2026')
})

test('numbers use the locale’s grouping', () => {
  expect(formatNumber(100000, 'en-GB')).toBe('100,000')
  expect(formatNumber(100000, 'de-DE')).toBe('100.000')
})

/**
 * Dates in a PDF as the reader reads them: their browser's locale (Accept-Language, as the screens
 * use) and the organisation's time zone (Settings → Site), named in every moment printed.
 */

export type Clock = { now: Date; locale: string; timeZone: string }

function safeLocale(locale: string): string {
  try {
    return Intl.DateTimeFormat.supportedLocalesOf(locale)[0] ?? 'en-GB'
  } catch {
    return 'en-GB'
  }
}

function safeZone(timeZone: string): string {
  try {
    new Intl.DateTimeFormat('en', { timeZone })
    return timeZone
  } catch {
    return 'UTC'
  }
}

/** A moment, e.g. "10 Mar 2025, 09:00 CET". */
export function momentOf(isoUtc: string, clock: Clock): string {
  return new Intl.DateTimeFormat(safeLocale(clock.locale), { dateStyle: 'medium', timeStyle: 'short', timeZone: safeZone(clock.timeZone) })
    .format(new Date(isoUtc))
    .concat(` ${zoneName(isoUtc, clock)}`)
}

function zoneName(isoUtc: string, clock: Clock): string {
  const parts = new Intl.DateTimeFormat(safeLocale(clock.locale), { timeZone: safeZone(clock.timeZone), timeZoneName: 'short' }).formatToParts(new Date(isoUtc))
  return parts.find((p) => p.type === 'timeZoneName')?.value ?? clock.timeZone
}

/** A calendar date (YYYY-MM-DD), e.g. "20 Mar 2025": no time zone may shift it. */
export function dateOf(isoDate: string, clock: Clock): string {
  return new Intl.DateTimeFormat(safeLocale(clock.locale), { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${isoDate.slice(0, 10)}T00:00:00Z`))
}

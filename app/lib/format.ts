/**
 * Dates and numbers in the user's locale. Server and browser render with the same locale (the
 * root loader's, from Accept-Language) and the same time zone (UTC for timestamps unless a
 * calendar date), so hydration never disagrees.
 */
const FALLBACK_LOCALE = 'en-GB'

export function preferredLocale(acceptLanguage: string | null | undefined): string {
  const candidates = (acceptLanguage ?? '')
    .split(',')
    .map((part) => part.split(';')[0]?.trim())
    .filter((tag): tag is string => Boolean(tag) && tag !== '*')
  for (const tag of candidates) {
    try {
      const [supported] = Intl.DateTimeFormat.supportedLocalesOf(tag)
      if (supported) return supported
    } catch {
      // not a valid language tag
    }
  }
  return FALLBACK_LOCALE
}

/** A moment, e.g. "22 Nov 2026, 09:14 UTC". */
export function formatDateTime(isoUtc: string, locale: string): string {
  return dateTimeFormat(locale).format(new Date(isoUtc))
}

/** A calendar date (YYYY-MM-DD), e.g. "22 Nov 2026": no time zone may shift it. */
export function formatDate(isoDate: string, locale: string): string {
  return dateFormat(locale).format(new Date(`${isoDate.slice(0, 10)}T00:00:00Z`))
}

export function formatNumber(value: number, locale: string): string {
  return numberFormat(locale).format(value)
}

// Building an Intl formatter costs far more than using one: a list of items formats hundreds of
// dates, which made formatter construction the largest single cost of hydrating /items on a slow
// phone (docs/performance.md "First paint"). One formatter per locale, kept.
const dateTimeFormat = perLocale(
  (locale) =>
    // dateStyle/timeStyle cannot be combined with timeZoneName, so the fields are spelled out.
    new Intl.DateTimeFormat(locale, {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      timeZone: 'UTC',
      timeZoneName: 'short',
    }),
)
const dateFormat = perLocale((locale) => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }))
const numberFormat = perLocale((locale) => new Intl.NumberFormat(locale))

function perLocale<T>(create: (locale: string) => T): (locale: string) => T {
  const made = new Map<string, T>()
  return (locale) => {
    let formatter = made.get(locale)
    if (!formatter) {
      formatter = create(locale)
      made.set(locale, formatter)
    }
    return formatter
  }
}

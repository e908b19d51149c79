/**
 * The telemetry events the product sends (spec §9: names carry an area prefix under the web
 * namespace). Properties never carry personal data: no names, addresses, ids of people, file
 * names or free text; states, counts, sizes and codes only.
 */
export const TELEMETRY_EVENT_NAMES = [
  /** A sign-in step shown or refused: { step: credentials | mfa | mfa-enrolment, mode: user | admin, outcome: shown | refused }. */
  'web.auth.sign-in.step',
  /** The route guard sent the browser elsewhere: { outcome: login | step-up | forbidden, area }. */
  'web.auth.guard.redirect',
  /** Mobile sync changed state: { status, failures }. */
  'web.sync.state',
  /** The realtime connection changed state: { status, reconnect }. */
  'web.realtime.state',
  /** A resumable upload began a new session: { bytes, contentType }. */
  'web.uploads.started',
  /** A resumable upload went on from the server's offset: { bytes, offset }. */
  'web.uploads.resumed',
  /** A resumable upload call failed: { status, code, network, transient }. */
  'web.uploads.failed',
] as const
export type TelemetryEventName = (typeof TELEMETRY_EVENT_NAMES)[number]

/** Flat values only (the ingest accepts one level; these stay readable in the admin list). */
export type TelemetryProperties = Record<string, string | number | boolean | null>

/** Where the guard sent the browser, read from the address it landed on (app/lib/auth/guard.ts); null when it was no guard redirect. */
export function guardRedirectOf(pathname: string, search: URLSearchParams): TelemetryProperties | null {
  const wanted = pathname === '/forbidden/admin' ? search.get('from') : pathname === '/auth/login' ? search.get('redirectTo') : null
  if (!wanted) return null
  const outcome = pathname === '/forbidden/admin' ? 'forbidden' : search.get('mode') === 'admin' ? 'step-up' : 'login'
  // The first segment only (admin, items, reports): ids and queries in the rest could name people.
  const area = /^\/([a-z-]{1,40})(?:[/?#]|$)/.exec(wanted)?.[1] ?? 'other'
  return { outcome, area }
}

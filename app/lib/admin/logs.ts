/**
 * Administration › Logs (docs/observability.md "Logs"): the shapes of `GET /api/admin/logs/tail`
 * and of the hub's `LogLine` event, and the one filter rule the backend's tail, the page and the
 * live follow all apply, so a followed line shows exactly when a refresh would show it.
 */

/** Which part of the server wrote a line (the `unit` field every line carries). */
export const LOG_UNITS = ['web', 'jobs', 'hub', 'mail'] as const
export type LogUnit = (typeof LOG_UNITS)[number]

export const LOG_UNIT_LABELS: Record<LogUnit, string> = {
  web: 'Web (requests)',
  jobs: 'Background jobs',
  hub: 'Realtime hub',
  mail: 'Mail worker',
}

/** pino's levels, lowest first, with its numbers. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]
export const LOG_LEVEL_NUMBERS: Record<LogLevel, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 }

/** The badge tone of each level (the text carries the meaning, never the colour alone). */
export const LOG_LEVEL_TONES: Record<LogLevel, 'neutral' | 'info' | 'warning' | 'critical'> = {
  trace: 'neutral',
  debug: 'neutral',
  info: 'info',
  warn: 'warning',
  error: 'critical',
  fatal: 'critical',
}

/** How many lines one tail answers: 200 unless asked, at most 1,000. */
export const LOG_TAIL_DEFAULT_LINES = 200
export const LOG_TAIL_MAX_LINES = 1000
export const LOG_QUERY_MAX = 200
/** How many lines one page of /admin/logs shows unless asked (its "Older lines" link pages back). */
export const LOG_PAGE_DEFAULT_LINES = 50

/** The live list keeps at most this many lines (the oldest go first). */
export const LOG_FOLLOW_MAX_LINES = 1000

/** One line as the tail and the hub show it; secrets were removed by the logger before it was written. */
export type LogLine = {
  /** Position in this server's ring since it started: orders lines, and joins a tail with the live lines after it. */
  seq: number
  timeUtc: string
  level: LogLevel
  unit: string | null
  msg: string
  correlationId: string | null
  visitorId: string | null
  /** Everything else the line carries (path, status, ms, userId, err, …). */
  fields: Record<string, unknown>
}

export type LogTailResponse = {
  /** Oldest first (newest last), at most `lines`. */
  lines: LogLine[]
  /** Whether LOG_FILE is set: the same lines also go to that file on the server. */
  logFile: boolean
  /** The oldest line this server still holds in memory (any organisation's), or null when it holds none. */
  heldSinceUtc: string | null
  /** `before` for the next, older page (the oldest answered line's seq), or null when no older line matches. */
  nextBefore: number | null
}

/** The hub's `LogLine` event: at most one a second per follower, the lines written since the last. */
export type LogLineBatch = {
  lines: LogLine[]
  /** Lines left out because more came in one second than a batch carries. */
  dropped: number
}

export type LogFilter = {
  unit?: LogUnit | null | undefined
  level?: LogLevel | null | undefined
  /** Only lines at or after this moment (ms since the epoch). */
  sinceMs?: number | null | undefined
  /** Only lines at or before this moment (ms since the epoch). */
  untilMs?: number | null | undefined
  query?: string | null | undefined
}

/** The level name of a pino level number: the highest named level at or below it. */
export function levelName(level: number): LogLevel {
  let name: LogLevel = 'trace'
  for (const candidate of LOG_LEVELS) if (LOG_LEVEL_NUMBERS[candidate] <= level) name = candidate
  return name
}

/** The text a query searches: the message and every value of the line, lower-cased. */
export function logSearchText(line: LogLine): string {
  const parts: string[] = [line.msg, line.unit ?? '', line.correlationId ?? '', line.visitorId ?? '']
  collectValues(line.fields, parts, 0)
  return parts.join('\n').toLowerCase()
}

function collectValues(value: unknown, parts: string[], depth: number): void {
  if (value === null || value === undefined) return
  if (typeof value === 'string') parts.push(value)
  else if (typeof value === 'number' || typeof value === 'boolean') parts.push(String(value))
  else if (typeof value === 'object' && depth < 6) {
    for (const inner of Array.isArray(value) ? value : Object.values(value)) collectValues(inner, parts, depth + 1)
  }
}

/**
 * Whether a line passes the filter: its unit, its level or above, at or after `since`, at or before `until`, and the
 * query (case-insensitive) somewhere in its message or values. `searchText` lets a caller that
 * keeps lines cache the text.
 */
export function matchesLogFilter(line: LogLine, filter: LogFilter, searchText: () => string = () => logSearchText(line)): boolean {
  if (filter.unit && line.unit !== filter.unit) return false
  if (filter.level && LOG_LEVEL_NUMBERS[line.level] < LOG_LEVEL_NUMBERS[filter.level]) return false
  if (filter.sinceMs !== null && filter.sinceMs !== undefined && Date.parse(line.timeUtc) < filter.sinceMs) return false
  if (filter.untilMs !== null && filter.untilMs !== undefined && Date.parse(line.timeUtc) > filter.untilMs) return false
  const query = filter.query?.trim().toLowerCase()
  if (query && !searchText().includes(query)) return false
  return true
}

/** The page's "since" choices: a window back from when the page is drawn. */
export const LOG_SINCE_WINDOWS = [
  { value: '5m', label: 'Last 5 minutes', ms: 5 * 60_000 },
  { value: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { value: '1h', label: 'Last hour', ms: 60 * 60_000 },
  { value: '6h', label: 'Last 6 hours', ms: 6 * 60 * 60_000 },
  { value: '24h', label: 'Last 24 hours', ms: 24 * 60 * 60_000 },
] as const

/**
 * /admin/logs's address: its filters and, on an older page, `before` (the paging cursor); each ''
 * when not set. `from` and `to` are as typed: a date and time in UTC without a zone (what a
 * datetime-local field sends, e.g. 2026-05-01T09:30), or an ISO date-time with its offset from a link.
 */
export type LogsPageQuery = { unit: string; level: string; since: string; from: string; to: string; query: string; lines: string; before: string }
/** The filters (the form's fields); `before` is not one: a new filter starts again at the newest lines. */
export const LOGS_PAGE_FIELDS = ['unit', 'level', 'since', 'from', 'to', 'query', 'lines'] as const

export function logsPageQuery(url: URL): LogsPageQuery {
  const read = (name: string, max: number) => (url.searchParams.get(name) ?? '').trim().slice(0, max)
  return {
    unit: read('unit', 20),
    level: read('level', 20),
    since: read('since', 40),
    from: read('from', 40),
    to: read('to', 40),
    query: read('query', LOG_QUERY_MAX),
    lines: read('lines', 10),
    before: read('before', 20),
  }
}

export function hasLogFilters(query: LogsPageQuery): boolean {
  return LOGS_PAGE_FIELDS.some((name) => query[name] !== '')
}

export function logsHref(query: Partial<LogsPageQuery>): string {
  const params = new URLSearchParams()
  for (const name of [...LOGS_PAGE_FIELDS, 'before'] as const) {
    const value = query[name]
    if (value) params.set(name, value)
  }
  const search = params.toString()
  return `/admin/logs${search ? `?${search}` : ''}`
}

/**
 * The API's `since` for the page's: a window ("15m") counts back from `nowMs`; anything else (an
 * ISO date-time from a link) goes as it is, for the API to accept or refuse.
 */
export function sinceForApi(since: string, nowMs: number): string | undefined {
  if (since === '') return undefined
  const window = LOG_SINCE_WINDOWS.find((w) => w.value === since)
  return window ? new Date(nowMs - window.ms).toISOString() : since
}

/** A date and time without a zone, as a datetime-local field sends it (seconds optional). */
const ZONELESS_MOMENT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{3})?)?$/

/** The moment of a zoneless date and time read as UTC, or NaN when it is none (31 February included). */
function zonelessMs(value: string): number {
  if (!ZONELESS_MOMENT.test(value)) return Number.NaN
  const ms = Date.parse(`${value}Z`)
  // Date.parse rolls 2026-02-30 over into March: only a value that reads back the same is a moment.
  return !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(value) ? ms : Number.NaN
}

/**
 * The API's `from` or `to` for the page's: the page's times are UTC (like every time the portal
 * shows), so a zoneless date and time is read as UTC; a `to` given to the minute covers that whole
 * minute (to 10:00 keeps a line written at 10:00:30). Anything else goes as it is, for the API to
 * accept (an ISO date-time with its offset, from a link) or refuse next to its field.
 */
export function momentForApi(value: string, end: 'from' | 'to'): string | undefined {
  if (value === '') return undefined
  const ms = zonelessMs(value)
  if (Number.isNaN(ms)) return value
  const wholeMinute = value.length === 'YYYY-MM-DDTHH:MM'.length
  return new Date(end === 'to' && wholeMinute ? ms + 59_999 : ms).toISOString()
}

/** Whether a datetime-local field can show the page's value; any other value is shown as typed, in a text field. */
export function isFieldMoment(value: string): boolean {
  return !Number.isNaN(zonelessMs(value))
}

/** The page's filter as the live follow applies it to new lines (values the API refused are ignored). */
export function liveFilterOf(query: LogsPageQuery, nowMs: number): LogFilter {
  const msOf = (value: string | undefined) => (value ? Date.parse(value) : Number.NaN)
  const lower = [msOf(sinceForApi(query.since, nowMs)), msOf(momentForApi(query.from, 'from'))].filter((ms) => !Number.isNaN(ms))
  const untilMs = msOf(momentForApi(query.to, 'to'))
  return {
    unit: (LOG_UNITS as readonly string[]).includes(query.unit) ? (query.unit as LogUnit) : null,
    level: (LOG_LEVELS as readonly string[]).includes(query.level) ? (query.level as LogLevel) : null,
    sinceMs: lower.length > 0 ? Math.max(...lower) : null,
    untilMs: Number.isNaN(untilMs) ? null : untilMs,
    query: query.query || null,
  }
}

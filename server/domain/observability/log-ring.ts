import { levelName, logSearchText, matchesLogFilter, type LogFilter, type LogLine } from '~/lib/admin/logs'

/**
 * The server's recent log lines in memory (docs/observability.md "Logs"): every line the logger
 * writes also comes here (a pino destination), already redacted. Bounded by lines and by size,
 * whichever is reached first; the oldest go. One per process: several instances each hold their own.
 */

export const LOG_RING_MAX_LINES = 5000
/** Of log text (the lines as written); the parsed lines take about twice that in memory. */
export const LOG_RING_MAX_BYTES = 5 * 1024 * 1024
/** A longer line is kept as its core fields only, so one huge line cannot push out the rest. */
const LINE_MAX_CHARS = 64 * 1024

/** Fields every line has that the view shows apart, or that say nothing (pino's base). */
const OWN_FIELDS = new Set(['time', 'level', 'msg', 'unit', 'correlationId', 'visitorId', 'tenantId', 'service', 'pid', 'hostname'])

export type RingEntry = {
  line: LogLine
  /** The organisation the line is about, when it names one: only that organisation's administrators see it. */
  tenantId: string | null
  chars: number
  search?: string
}

export type LogRingOptions = { maxLines?: number; maxBytes?: number }

export class LogRing {
  private entries: RingEntry[] = []
  private head = 0
  private chars = 0
  private seq = 0
  private readonly listeners = new Set<(entry: RingEntry) => void>()
  private readonly maxLines: number
  private readonly maxBytes: number

  constructor(options: LogRingOptions = {}) {
    this.maxLines = options.maxLines ?? LOG_RING_MAX_LINES
    this.maxBytes = options.maxBytes ?? LOG_RING_MAX_BYTES
  }

  /** pino's destination interface: one or more JSON lines. Never throws into the logger. */
  write(chunk: string): void {
    for (const text of chunk.split('\n')) if (text !== '') this.add(text)
  }

  get size(): number {
    return this.entries.length - this.head
  }

  /** The oldest line held, any organisation's. */
  oldest(): LogLine | undefined {
    return this.entries[this.head]?.line
  }

  /**
   * The newest `limit` lines of the organisation that pass the filter, oldest first. Lines that
   * name no organisation (start-up, instance-wide jobs) are never answered.
   */
  tail(tenantId: string, filter: LogFilter, limit: number): LogLine[] {
    return this.page(tenantId, filter, limit).lines
  }

  /**
   * One page of `tail`, going back: the newest `limit` matching lines written before the line
   * numbered `before` (all when absent), oldest first, and the `before` of the next older page
   * (the oldest answered line's number), or null when no older line matches.
   */
  page(tenantId: string, filter: LogFilter, limit: number, before?: number): { lines: LogLine[]; nextBefore: number | null } {
    const found: LogLine[] = []
    let more = false
    for (let index = this.entries.length - 1; index >= this.head; index--) {
      const entry = this.entries[index]
      if (!entry) continue
      if (before !== undefined && entry.line.seq >= before) continue
      // Lines are held in the order they were written: everything further back is older still.
      if (filter.sinceMs !== null && filter.sinceMs !== undefined && Date.parse(entry.line.timeUtc) < filter.sinceMs) break
      if (entry.tenantId !== tenantId) continue
      if (!matchesLogFilter(entry.line, filter, () => (entry.search ??= logSearchText(entry.line)))) continue
      if (found.length === limit) {
        more = true
        break
      }
      found.push(entry.line)
    }
    const lines = found.reverse()
    return { lines, nextBefore: more ? (lines[0]?.seq ?? null) : null }
  }

  /** Called with each new line as it is written; must not log (that would write another line). */
  subscribe(listener: (entry: RingEntry) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private add(text: string): void {
    const entry = this.parse(text)
    if (!entry) return
    this.entries.push(entry)
    this.chars += entry.chars
    while (this.size > 1 && (this.size > this.maxLines || this.chars > this.maxBytes)) {
      const dropped = this.entries[this.head]
      this.chars -= dropped?.chars ?? 0
      this.head += 1
    }
    // Drop the gone lines now and then, not on every line (shifting 5,000 references each time).
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head)
      this.head = 0
    }
    for (const listener of this.listeners) {
      try {
        listener(entry)
      } catch {
        // A listener's failure must not break logging.
      }
    }
  }

  private parse(text: string): RingEntry | undefined {
    let record: unknown
    try {
      record = JSON.parse(text)
    } catch {
      return undefined
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) return undefined
    const values = record as Record<string, unknown>
    const fields: Record<string, unknown> = {}
    if (text.length > LINE_MAX_CHARS) fields.truncated = `This line was ${text.length} characters long; only its message is kept.`
    else for (const [key, value] of Object.entries(values)) if (!OWN_FIELDS.has(key)) fields[key] = value
    this.seq += 1
    const time = typeof values.time === 'number' ? values.time : Date.now()
    return {
      line: {
        seq: this.seq,
        timeUtc: new Date(time).toISOString(),
        level: levelName(typeof values.level === 'number' ? values.level : 30),
        unit: stringOrNull(values.unit),
        msg: (stringOrNull(values.msg) ?? '').slice(0, LINE_MAX_CHARS),
        correlationId: stringOrNull(values.correlationId),
        visitorId: stringOrNull(values.visitorId),
        fields,
      },
      tenantId: stringOrNull(values.tenantId),
      chars: Math.min(text.length, LINE_MAX_CHARS),
    }
  }
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null
}

import {
  ERROR_FLUSH_EVENTS,
  ERROR_FLUSH_MS,
  ERROR_MAX_PER_SEND,
  ERROR_QUEUE_MAX,
  ERROR_REPEAT_MAX,
  STACK_TRACE_MAX,
  TELEMETRY_PATHS,
} from '~/lib/constants'
import type { ErrorSource } from '~/lib/telemetry'

/** Where an error was caught; the event name is `web.error.<source>`. */
export type { ErrorSource } from '~/lib/telemetry'

/** Spec §3 "Frontend error event". */
export interface FrontendErrorEvent {
  name: `web.error.${ErrorSource}`
  timestampUtc: string
  message: string
  stack: string
  path: string
  userAgent: string
  release: string
  /** The visitor id (kr-vis). */
  correlationId: string
}

export interface ErrorBatcherOptions {
  release: string
  correlationId: string
  userAgent: string
  /** The current page's path (location.pathname), read when the error happens. */
  path: () => string
  fetch?: typeof fetch
  now?: () => Date
}

export interface ErrorBatcher {
  /** For error boundaries, failed route loads and the window listeners. Never throws. */
  report(error: unknown, source?: ErrorSource): void
  /** Sends what is queued now, at most 50 events a request; never rejects. */
  flush(): Promise<void>
  readonly queued: number
  /** Errors counted but not sent: repeats past the flood limit and overflow of the queue. */
  readonly suppressed: number
  stop(): void
}

export function createErrorBatcher(options: ErrorBatcherOptions): ErrorBatcher {
  // A local, not a property call: fetch throws "Illegal invocation" when called on another object.
  const send = options.fetch ?? fetch
  const now = options.now ?? (() => new Date())
  const queue: FrontendErrorEvent[] = []
  const seen = new Map<string, number>()
  let timer: ReturnType<typeof setTimeout> | undefined
  let busy = 0
  let reporting = false
  let stopped = false
  let suppressed = 0

  function schedule() {
    if (busy || stopped || !queue.length) return
    if (queue.length >= ERROR_FLUSH_EVENTS) void flush()
    else timer ??= setTimeout(flush, ERROR_FLUSH_MS)
  }

  // Spec §7: failures are ignored. Nothing here may throw or reject, or the window listeners
  // would report our own failure and loop.
  async function post(events: FrontendErrorEvent[]): Promise<void> {
    let status = 0
    try {
      const response = await send(TELEMETRY_PATHS.publicErrors, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ events }),
        keepalive: true,
        credentials: 'same-origin',
      })
      if (response.ok) return
      status = response.status
    } catch {
      // A network error, or a keepalive body over the browser's limit: status 0.
    }
    try {
      console.warn(`Public error ingest failed ${status}`)
    } catch {
      // A broken console must not turn into another report.
    }
  }

  async function sendAll(batch: FrontendErrorEvent[]): Promise<void> {
    for (let at = 0; at < batch.length; at += ERROR_MAX_PER_SEND) await post(batch.slice(at, at + ERROR_MAX_PER_SEND))
  }

  function flush(): Promise<void> {
    clearTimeout(timer)
    timer = undefined
    const batch = queue.splice(0)
    if (!batch.length) return Promise.resolve()
    busy++
    return sendAll(batch).finally(() => {
      busy--
      schedule()
    })
  }

  function report(error: unknown, source: ErrorSource = 'boundary') {
    if (reporting || stopped) return
    reporting = true
    try {
      const { message, stack } = describe(error)
      const key = `${message}\n${stack}`
      const count = (seen.get(key) ?? 0) + 1
      seen.set(key, count)
      if (count > ERROR_REPEAT_MAX || queue.length >= ERROR_QUEUE_MAX) {
        suppressed++
        return
      }
      queue.push({
        name: `web.error.${source}`,
        timestampUtc: now().toISOString(),
        message,
        stack,
        path: options.path(),
        userAgent: options.userAgent,
        release: options.release,
        correlationId: options.correlationId,
      })
      schedule()
    } catch {
      // An error while reporting is dropped, never reported.
    } finally {
      reporting = false
    }
  }

  return {
    report,
    flush,
    get queued() {
      return queue.length
    },
    get suppressed() {
      return suppressed
    },
    stop() {
      stopped = true
      clearTimeout(timer)
      timer = undefined
    },
  }
}

/** Message and stack of anything thrown; the stack cut at spec §9's 4000 characters. */
export function describe(error: unknown): { message: string; stack: string } {
  const value = error as { message?: unknown; stack?: unknown } | null | undefined
  const message = typeof value?.message === 'string' ? value.message : String(error)
  const stack = typeof value?.stack === 'string' ? value.stack : ''
  // The message has no limit in the spec; the same cut keeps one odd error from filling a send.
  return { message: message.slice(0, STACK_TRACE_MAX), stack: stack.slice(0, STACK_TRACE_MAX) }
}

import { TELEMETRY_FLUSH_EVENTS, TELEMETRY_FLUSH_MS, TELEMETRY_PATHS, TELEMETRY_QUEUE_MAX } from '~/lib/constants'
import type { TelemetryEventName } from '~/lib/telemetry-events'

export { TELEMETRY_EVENT_NAMES, type TelemetryEventName } from '~/lib/telemetry-events'

/** Spec §3 "Telemetry event". */
export interface TelemetryEvent {
  name: TelemetryEventName
  properties: Record<string, unknown>
  source: 'web'
  timestampUtc: string
  correlationId: string
}

/** Spec §3 "Failure tracking". */
export interface FailureTracking {
  failureCount: number
  consecutiveFailures: number
  lastFailureUtc: string | null
  lastSuccessUtc: string | null
  lastError: string | null
}

export interface TelemetryBatcherOptions {
  /** Spec §7: sending is off until a log channel is configured; then `track` does nothing. */
  enabled: boolean
  /** The visitor id, used when `track` is given no correlation id of its own. */
  correlationId: string
  fetch?: typeof fetch
  now?: () => Date
  sendBeacon?: (url: string, data: Blob) => boolean
  /** Extra headers of the credentialed send, e.g. the optional Authorization of spec §7. */
  headers?: () => Record<string, string>
}

export interface TelemetryBatcher {
  /** `timestampUtc`: when it happened, if earlier than now (an event held until the batcher started). */
  track(name: TelemetryEventName, properties?: Record<string, unknown>, correlationId?: string, timestampUtc?: string): void
  /** Sends the oldest 40 queued events now (the rest follow); never rejects. */
  flush(): Promise<void>
  /** Page hide: hands what is queued to `sendBeacon`, 40 events a beacon; it outlives the page. */
  flushBeacon(): void
  readonly failures: Readonly<FailureTracking>
  readonly queued: number
  /** No more timers and no more tracking; `flush` and `flushBeacon` still send what is left. */
  stop(): void
}

const JSON_TYPE = 'application/json'

export function createTelemetryBatcher(options: TelemetryBatcherOptions): TelemetryBatcher {
  // A local, not a property call: fetch throws "Illegal invocation" when called on another object.
  const send = options.fetch ?? fetch
  const now = options.now ?? (() => new Date())
  const queue: TelemetryEvent[] = []
  const failures: FailureTracking = { failureCount: 0, consecutiveFailures: 0, lastFailureUtc: null, lastSuccessUtc: null, lastError: null }
  let timer: ReturnType<typeof setTimeout> | undefined
  let busy = 0
  let stopped = false

  function bound() {
    if (queue.length > TELEMETRY_QUEUE_MAX) queue.splice(0, queue.length - TELEMETRY_QUEUE_MAX)
  }

  // While a send is in flight nothing else starts; while the ingest fails only the timer retries,
  // so a full queue cannot turn every tracked event into a request.
  function schedule() {
    if (busy || stopped || !queue.length) return
    if (queue.length >= TELEMETRY_FLUSH_EVENTS && !failures.consecutiveFailures) void flush()
    else timer ??= setTimeout(flush, TELEMETRY_FLUSH_MS)
  }

  // One request carries at most one flush's worth (40), so a queue grown during an outage goes
  // out in several requests that each stay under the ingest's batch and body limits.
  function take(): TelemetryEvent[] {
    clearTimeout(timer)
    timer = undefined
    return queue.splice(0, TELEMETRY_FLUSH_EVENTS)
  }

  async function post(batch: TelemetryEvent[]): Promise<void> {
    const body = JSON.stringify({ source: 'web', events: batch })
    let status = 0
    try {
      let response = await send(TELEMETRY_PATHS.events, {
        method: 'POST',
        headers: { 'Content-Type': JSON_TYPE, ...options.headers?.() },
        body,
        credentials: 'include',
      })
      if (response.status === 401 || response.status === 403) {
        response = await send(TELEMETRY_PATHS.publicEvents, {
          method: 'POST',
          headers: { 'Content-Type': JSON_TYPE },
          body,
          credentials: 'omit',
        })
      }
      status = response.status
      if (response.ok) {
        failures.consecutiveFailures = 0
        failures.lastSuccessUtc = now().toISOString()
        return
      }
    } catch {
      // A network error: status 0.
    }
    const message = `Telemetry ingest failed with status ${status}`
    console.warn(message)
    failures.failureCount++
    failures.consecutiveFailures++
    failures.lastFailureUtc = now().toISOString()
    failures.lastError = message
    queue.unshift(...batch)
    bound()
  }

  function flush(): Promise<void> {
    const batch = take()
    if (!batch.length) return Promise.resolve()
    busy++
    return post(batch).finally(() => {
      busy--
      schedule()
    })
  }

  return {
    track(name, properties = {}, correlationId = options.correlationId, timestampUtc = now().toISOString()) {
      if (!options.enabled || stopped) return
      queue.push({ name, properties, source: 'web', timestampUtc, correlationId })
      bound()
      schedule()
    },
    flush,
    flushBeacon() {
      while (queue.length && options.sendBeacon) {
        const events = queue.slice(0, TELEMETRY_FLUSH_EVENTS)
        const blob = new Blob([JSON.stringify({ source: 'web', events })], { type: JSON_TYPE })
        // A refused beacon (too large, over the browser's quota) leaves the rest queued.
        if (!options.sendBeacon(TELEMETRY_PATHS.events, blob)) return
        take()
      }
    },
    failures,
    get queued() {
      return queue.length
    },
    stop() {
      stopped = true
      clearTimeout(timer)
      timer = undefined
    },
  }
}

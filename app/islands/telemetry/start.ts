import { createErrorBatcher, type ErrorBatcher } from './error-batcher'
import { inSample } from './sampling'
import { createTelemetryBatcher, type TelemetryBatcher } from './telemetry-batcher'
import { loadVisitorId } from './visitor'

interface EventHost {
  addEventListener(type: string, listener: (event: Event) => void): void
  removeEventListener(type: string, listener: (event: Event) => void): void
}

/** The parts of `window` telemetry uses; tests hand in a small fake. */
export interface TelemetryHost extends EventHost {
  location: { pathname: string; protocol: string }
  navigator: { userAgent: string; sendBeacon?: (url: string, data: Blob) => boolean }
  document: EventHost & { cookie: string; visibilityState: string }
}

export interface StartTelemetryOptions {
  /** Spec §7: usage events are off until the organisation's telemetry configuration turns them on. */
  telemetryEnabled: boolean
  /** Configuration › Telemetry "Sampling": the share of visitors (stable per kr-vis id) that send usage events; default 100. */
  samplingPercent?: number
  /** Settings › Admin "collect frontend errors": off, no listeners and `errors.report` drops; default on. */
  errorsEnabled?: boolean
  /** The build that runs, sent with every error. */
  release: string
  fetch?: typeof fetch
  now?: () => Date
  /** Defaults to `window`. */
  host?: TelemetryHost
  /** Extra headers of the credentialed telemetry send (Authorization, CSRF). */
  headers?: () => Record<string, string>
}

export interface Telemetry {
  telemetry: TelemetryBatcher
  errors: ErrorBatcher
  /** The kr-vis visitor id both batchers use as correlation id. */
  visitorId: string
  /** Whether usage events are sent from this browser: telemetry on and the visitor in the sample. */
  sampled: boolean
  /** Removes the listeners and timers; what is still queued stays unsent. */
  stop(): void
}

/** Starts the two invisible batchers of spec §7 "Telemetry" for this page. Call once, in the browser. */
export function startTelemetry(options: StartTelemetryOptions): Telemetry {
  const host = options.host ?? window
  const { document: doc, navigator: nav } = host
  const visitorId = loadVisitorId(doc, host.location.protocol === 'https:')
  const sampled = options.telemetryEnabled && inSample(visitorId, options.samplingPercent ?? 100)
  const collectErrors = options.errorsEnabled ?? true
  const telemetry = createTelemetryBatcher({
    enabled: sampled,
    correlationId: visitorId,
    fetch: options.fetch,
    now: options.now,
    headers: options.headers,
    sendBeacon: (url, data) => nav.sendBeacon?.(url, data) ?? false,
  })
  const errors = createErrorBatcher({
    release: options.release,
    correlationId: visitorId,
    userAgent: nav.userAgent,
    path: () => host.location.pathname,
    fetch: options.fetch,
    now: options.now,
  })

  // A cross-origin script's error has no error object, only the browser's "Script error." text.
  const onError = (event: Event) => errors.report((event as ErrorEvent).error ?? (event as ErrorEvent).message, 'window')
  const onRejection = (event: Event) => errors.report((event as PromiseRejectionEvent).reason, 'unhandled-rejection')
  // Spec §7: a beacon on page hide. visibilitychange to hidden is the last event a mobile browser
  // reliably fires; pagehide covers navigation and bfcache.
  const onHide = (event: Event) => {
    if (event.type !== 'pagehide' && doc.visibilityState !== 'hidden') return
    telemetry.flushBeacon()
    void errors.flush()
  }

  if (collectErrors) {
    host.addEventListener('error', onError)
    host.addEventListener('unhandledrejection', onRejection)
  } else errors.stop()
  host.addEventListener('pagehide', onHide)
  doc.addEventListener('visibilitychange', onHide)

  return {
    telemetry,
    errors,
    visitorId,
    sampled,
    stop() {
      host.removeEventListener('error', onError)
      host.removeEventListener('unhandledrejection', onRejection)
      host.removeEventListener('pagehide', onHide)
      doc.removeEventListener('visibilitychange', onHide)
      telemetry.stop()
      errors.stop()
    },
  }
}

import type { TelemetryEventName, TelemetryProperties } from './telemetry-events'

/**
 * The product's one door to telemetry (issue 15), small enough for every page: `track` for usage
 * events, `reportError` for error boundaries and failed route loads. Both do nothing on the
 * server. In the browser they hold what happens before the batchers are started (lazily, after
 * hydration: app/islands/telemetry/connect.ts), a few of each, and hand it over then. Usage events
 * also wait while no organisation's switches are known (signed out: the sign-in steps), and are
 * dropped once they say no.
 */

export type ErrorSource = 'window' | 'unhandled-rejection' | 'boundary' | 'route-load'

/** Whether usage events are sent: 'undecided' until a signed-in page says. */
export type UsageDecision = 'on' | 'off' | 'undecided'

/** What the started batchers offer (app/islands/telemetry/connect.ts). */
export interface TelemetrySink {
  usage: UsageDecision
  track(name: TelemetryEventName, properties: TelemetryProperties, timestampUtc: string): void
  report(error: unknown, source: ErrorSource): void
}

/** Held until the batchers start, or the usage decision is made (bounded: the oldest go). */
const HELD_MAX = 40

let sink: TelemetrySink | undefined
const heldEvents: Array<[TelemetryEventName, TelemetryProperties, string]> = []
const heldErrors: Array<[unknown, ErrorSource]> = []

function hold<T>(list: T[], item: T): void {
  list.push(item)
  if (list.length > HELD_MAX) list.shift()
}

/** A usage event (names: app/lib/telemetry-events.ts). Properties carry no personal data. Never throws. */
export function track(name: TelemetryEventName, properties: TelemetryProperties = {}): void {
  if (typeof window === 'undefined') return
  const at = new Date().toISOString()
  if (sink?.usage === 'on') sink.track(name, properties, at)
  else if (!sink || sink.usage === 'undecided') hold(heldEvents, [name, properties, at])
}

/** An error caught by the app (error boundary, failed route load). Never throws. */
export function reportError(error: unknown, source: ErrorSource = 'boundary'): void {
  if (typeof window === 'undefined') return
  if (sink) sink.report(error, source)
  else hold(heldErrors, [error, source])
}

/** Errors of the page before the batchers start, held for them; returns the remover. */
export function holdEarlyErrors(target: Window): () => void {
  const onError = (event: ErrorEvent) => reportError(event.error ?? event.message, 'window')
  const onRejection = (event: PromiseRejectionEvent) => reportError(event.reason, 'unhandled-rejection')
  target.addEventListener('error', onError)
  target.addEventListener('unhandledrejection', onRejection)
  return () => {
    target.removeEventListener('error', onError)
    target.removeEventListener('unhandledrejection', onRejection)
  }
}

/** The started batchers take over (undefined: stopped, hold again); what was held goes to them. */
export function connectTelemetry(next: TelemetrySink | undefined): void {
  sink = next
  if (!next) return
  for (const [error, source] of heldErrors.splice(0)) next.report(error, source)
  if (next.usage === 'undecided') return
  const events = heldEvents.splice(0)
  if (next.usage === 'on') for (const [name, properties, at] of events) next.track(name, properties, at)
}

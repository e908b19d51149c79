import { connectTelemetry, type UsageDecision } from '~/lib/telemetry'
import type { TelemetryCollection } from '~/lib/telemetry-settings'
import { startTelemetry } from './start'

/** The build's release id (vite.config.ts `define`: version+commit); 'dev' where nothing defines it. */
declare const __APP_RELEASE__: string | undefined
export const RELEASE = typeof __APP_RELEASE__ === 'string' ? __APP_RELEASE__ : 'dev'

/**
 * The page's batchers (imported lazily by app/root.tsx once the page is idle), started with what
 * the organisation allows (the root loader's `telemetry`) and connected to `track` and
 * `reportError` of app/lib/telemetry.ts. Returns the stopper: a sign-in or a changed setting
 * starts them again with the new switches.
 */
export function connectPageTelemetry(collection: TelemetryCollection, signedIn: boolean): () => void {
  const started = startTelemetry({
    telemetryEnabled: collection.usage,
    samplingPercent: collection.samplingPercent,
    errorsEnabled: collection.errors,
    release: RELEASE,
  })
  const usage: UsageDecision = !signedIn ? 'undecided' : started.sampled ? 'on' : 'off'
  connectTelemetry({
    usage,
    track: (name, properties, at) => started.telemetry.track(name, properties, undefined, at),
    report: (error, source) => {
      if (collection.errors) started.errors.report(error, source)
    },
  })
  return () => {
    connectTelemetry(undefined)
    started.telemetry.flushBeacon()
    void started.errors.flush()
    started.stop()
  }
}

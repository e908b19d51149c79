import { DIAGNOSTICS_DEFAULTS } from '~/lib/settings/settings'

/**
 * What the browser's batchers may send on this page (GET /api/telemetry/settings, handed to the
 * page by the root loader): usage events for `samplingPercent` of visitors when `usage` is on,
 * frontend errors when `errors` is on.
 */
export type TelemetryCollection = { usage: boolean; samplingPercent: number; errors: boolean }

/**
 * Signed out there is no organisation to ask: no usage events are sent (the product's events wait
 * in the page until a sign-in says), and frontend errors follow the switch's default.
 */
export const SIGNED_OUT_COLLECTION: TelemetryCollection = { usage: false, samplingPercent: 0, errors: DIAGNOSTICS_DEFAULTS.collectFrontendErrors }

/** When the settings could not be read: nothing is sent. */
export const NO_COLLECTION: TelemetryCollection = { usage: false, samplingPercent: 0, errors: false }

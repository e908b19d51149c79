/**
 * Settings (issue 14, docs/settings.md): the JSON shapes of /api/settings/*, shared by the backend
 * and the screens. Plain types and constants; the forms' zod schemas are in app/lib/schemas/settings.ts.
 */

/** GET /api/settings/user (and `user` of GET /api/settings). */
export type UserSettings = {
  userId: string
  email: string
  displayName: string
  firstName: string | null
  lastName: string | null
  position: string | null
  /** An e-mail change waiting for its link to be followed. */
  pendingEmail: { newEmail: string; expiresAtUtc: string } | null
  mfa: {
    /** Confirmed with a code: sign-in asks for one. */
    enabled: boolean
    /** Started but not yet confirmed. */
    pending: boolean
    /** The person or the organisation requires it: it cannot be removed here. */
    enforced: boolean
  }
}

/** GET /api/settings/site. */
export type SiteSettings = {
  name: string
  slug: string
  /** Served by GET /api/settings/site/logo; `url` changes with the image. */
  logo: { url: string; contentType: string } | null
  /** The general configuration's defaultLocale and defaultTimeZone (one source). */
  locale: string
  timeZone: string
  /** ISO weekdays, 1 Monday … 7 Sunday; due dates count only these. */
  workingDays: number[]
  /** Administrators may change it; everyone else reads it. */
  canEdit: boolean
  /** Bumped by every save of these settings (not of the logo alone): send it back as expectedRevision. */
  revision: number
}

export type LicensingSettings = { enforceSeatLimit: boolean; warnNearSeatLimit: boolean }
export type DiagnosticsSettings = { collectFrontendErrors: boolean; collectUsageTelemetry: boolean; identifyUsersInReports: boolean }

/** GET /api/settings/admin: the organisation-wide switches, each with its default filled in. */
/** `revision`: bumped by every change of a switch (expectedRevision of the three PATCH calls). */
export type AdminSettings = { licensing: LicensingSettings; diagnostics: DiagnosticsSettings; revision: number }

export const LICENSING_DEFAULTS: LicensingSettings = { enforceSeatLimit: true, warnNearSeatLimit: true }
export const DIAGNOSTICS_DEFAULTS: DiagnosticsSettings = { collectFrontendErrors: true, collectUsageTelemetry: false, identifyUsersInReports: true }

/** GET /api/settings: what every tab needs. `admin` only for administrators. */
export type SettingsOverview = {
  user: UserSettings
  site: SiteSettings
  admin: AdminSettings | null
  /** The appearance saved with PATCH /api/settings/appearance, or null when never saved. */
  appearance: Record<string, unknown> | null
}

/** POST /api/settings/user/mfa/enrollment. */
export type MfaEnrollment = { secret: string; otpauthUri: string }

/** One of GET /api/settings/sessions. */
export type AccountSession = {
  id: string
  current: boolean
  kind: 'user' | 'admin'
  browser: string
  os: string
  ip: string | null
  /** The registered device this session signed in from, when there is one. */
  device: { deviceId: string; name: string | null; platform: string } | null
  signedInAtUtc: string
  lastSeenAtUtc: string
  expiresAtUtc: string
}

export type AccountSessions = { items: AccountSession[] }

/** A logo may be at most this big (docs/settings.md). */
export const LOGO_MAX_BYTES = 512 * 1024
export const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const

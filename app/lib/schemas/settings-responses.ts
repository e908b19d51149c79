import { z } from 'zod'
import { recordRevision } from './edit-conflict'
import { NotificationPreferencesResponseSchema } from './notification-preferences'
import { THEMES, type Appearance, type ContrastCheck } from '~/lib/appearance'
import { type NotificationPreferences } from '~/lib/settings/notifications'
import type { AppearanceSettings } from '~/lib/settings/appearance'
import type { AccountSessions, AdminSettings, MfaEnrollment, SettingsOverview, SiteSettings, UserSettings } from '~/lib/settings/settings'

/**
 * Settings' answers (docs/settings.md), as published in /api/openapi.json (named components) and
 * checked against every answer in the tests (schema incidents). They mirror app/lib/settings/*.ts
 * and app/lib/appearance.ts; `satisfies` keeps the two together.
 */

const utc = z.iso.datetime().describe('ISO 8601, UTC.')
const colour = z.string()

export const UserSettingsSchema = z
  .object({
    userId: z.uuid(),
    email: z.string(),
    displayName: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    position: z.string().nullable(),
    pendingEmail: z.object({ newEmail: z.string(), expiresAtUtc: utc }).nullable(),
    mfa: z.object({ enabled: z.boolean(), pending: z.boolean(), enforced: z.boolean() }),
  })
  .meta({ id: 'UserSettings' }) satisfies z.ZodType<UserSettings>

export const SiteSettingsSchema = z
  .object({
    name: z.string(),
    slug: z.string(),
    logo: z.object({ url: z.string(), contentType: z.string() }).nullable(),
    locale: z.string(),
    timeZone: z.string(),
    workingDays: z.array(z.number().int().min(1).max(7)),
    canEdit: z.boolean(),
    revision: recordRevision,
  })
  .meta({ id: 'SiteSettings' }) satisfies z.ZodType<SiteSettings>

export const AdminSettingsSchema = z
  .object({
    licensing: z.object({ enforceSeatLimit: z.boolean(), warnNearSeatLimit: z.boolean() }),
    diagnostics: z.object({ collectFrontendErrors: z.boolean(), collectUsageTelemetry: z.boolean(), identifyUsersInReports: z.boolean() }),
    revision: recordRevision,
  })
  .meta({ id: 'AdminSettings' }) satisfies z.ZodType<AdminSettings>

export const SettingsOverviewSchema = z.object({
  user: UserSettingsSchema,
  site: SiteSettingsSchema,
  admin: AdminSettingsSchema.nullable(),
  appearance: z.record(z.string(), z.unknown()).nullable(),
}) satisfies z.ZodType<SettingsOverview>

/** An authenticator secret to enrol: the same answer while signing in (GET /auth/mfa/enrollment) and in Settings. */
export const MfaEnrollmentSchema = z.object({ secret: z.string(), otpauthUri: z.string() }).meta({ id: 'MfaEnrollment' }) satisfies z.ZodType<MfaEnrollment>

export const AccountSessionsSchema = z.object({
  items: z.array(
    z
      .object({
        id: z.string(),
        current: z.boolean(),
        kind: z.enum(['user', 'admin']),
        browser: z.string(),
        os: z.string(),
        ip: z.string().nullable(),
        device: z.object({ deviceId: z.string(), name: z.string().nullable(), platform: z.string() }).nullable(),
        signedInAtUtc: utc,
        lastSeenAtUtc: utc,
        expiresAtUtc: utc,
      })
      .meta({ id: 'AccountSession' }),
  ),
}) satisfies z.ZodType<AccountSessions>

export const PendingEmailChangeSchema = z.object({ newEmail: z.string(), expiresAtUtc: utc })
export const VerifiedEmailSchema = z.object({ email: z.string() })
export const RevokedSchema = z.object({ revoked: z.number().int().min(0) })

export const AppearanceSchema = z
  .object({
    theme: z.enum(THEMES),
    highContrast: z.boolean(),
    useSystemTheme: z.boolean(),
    customPalette: z.object({ baseMode: z.enum(['light', 'dark']), primary: colour, secondary: colour, background: colour, surface: colour, text: colour }),
  })
  .meta({ id: 'Appearance' }) satisfies z.ZodType<Appearance>

export const AppearanceSettingsSchema = z.object({
  appearance: AppearanceSchema,
  saved: z.boolean(),
  contrast: z.array(
    z.object({ key: z.enum(['text-background', 'text-surface', 'button-text', 'link-surface']), label: z.string(), ratio: z.number(), ok: z.boolean() }).meta({ id: 'ContrastCheck' }) satisfies z.ZodType<ContrastCheck>,
  ),
  updatedAtUtc: utc.nullable(),
}).meta({ id: 'AppearanceSettings' }) satisfies z.ZodType<AppearanceSettings>

export const NotificationPreferencesSchema = NotificationPreferencesResponseSchema.meta({ id: 'NotificationPreferences' }) satisfies z.ZodType<NotificationPreferences>

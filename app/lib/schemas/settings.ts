import { z } from 'zod'
import { expectedRevision } from './edit-conflict'
import { emailField, MfaSchema, PASSWORD_MAX, TokenSchema } from './auth'

/**
 * Settings (issue 14, docs/settings.md): the forms of /settings/user, /site and /admin, used by the
 * screens (conform) and as the bodies of the /api/settings calls, so a rule and its message live
 * in one place.
 */

/** Absent: unchanged (PATCH); null or empty: cleared. The form sends every field, so an emptied one is cleared there. */
const optionalText = (label: string, max: number) =>
  z
    .string({ error: `${label} is text.` })
    .trim()
    .max(max, `${label} has at most ${max} characters.`)
    .nullable()
    .optional()

export const ProfileSchema = z.object({
  displayName: z.string({ error: 'Enter the name others see.' }).trim().min(1, 'Enter the name others see.').max(120, 'Use at most 120 characters.'),
  firstName: optionalText('A first name', 80),
  lastName: optionalText('A last name', 80),
  position: optionalText('A position', 120),
})

export const ProfilePatchSchema = ProfileSchema.partial().strict()

export const EmailChangeSchema = z.object({
  newEmail: emailField,
  currentPassword: z.string({ error: 'Enter your current password.' }).min(1, 'Enter your current password.').max(PASSWORD_MAX),
})

export const EmailConfirmSchema = TokenSchema

/** Confirming an enrolment, and removing two-factor authentication, both take the current code. */
export const MfaCodeSchema = MfaSchema

/** A slug: lower-case letters, digits and single hyphens, 3 to 40 characters (it appears in sign-in links). */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){2,39}$/

export const WEEKDAYS = [
  { value: 1, label: 'Monday' },
  { value: 2, label: 'Tuesday' },
  { value: 3, label: 'Wednesday' },
  { value: 4, label: 'Thursday' },
  { value: 5, label: 'Friday' },
  { value: 6, label: 'Saturday' },
  { value: 7, label: 'Sunday' },
] as const

const LOCALE_PATTERN = /^[a-z]{2,3}(?:-[A-Z][a-z]{3})?(?:-(?:[A-Z]{2}|\d{3}))?$/

export const SiteSchema = z.object({
  name: z.string({ error: 'Enter the organisation’s name.' }).trim().min(1, 'Enter the organisation’s name.').max(120, 'Use at most 120 characters.'),
  slug: z
    .string({ error: 'Enter a short name for links.' })
    .trim()
    .toLowerCase()
    .regex(SLUG_PATTERN, 'Use 3 to 40 lower-case letters, digits and single hyphens, starting and ending with a letter or digit.'),
  locale: z.string({ error: 'Choose a language and region.' }).trim().regex(LOCALE_PATTERN, 'Choose a language and region like en-GB.'),
  timeZone: z.string({ error: 'Choose a time zone.' }).trim().min(1, 'Choose a time zone.').max(64, 'Choose a time zone from the list.'),
  workingDays: z
    .array(z.coerce.number().int().min(1, 'Choose days of the week.').max(7, 'Choose days of the week.'), { error: 'Choose at least one working day.' })
    .min(1, 'Choose at least one working day.')
    .max(7, 'Choose days of the week.'),
})

/**
 * Organisation-wide switches of /settings/admin (spec §7 PATCH /settings/licensing and
 * /settings/diagnostics); their defaults and which part of the product reads each one are in
 * app/lib/settings/settings.ts and docs/settings.md. A call names only the switches it changes; an
 * unknown switch is refused.
 */
export const LicensingPatchSchema = z.strictObject({
  enforceSeatLimit: z.boolean({ error: 'enforceSeatLimit is true or false.' }).optional(),
  warnNearSeatLimit: z.boolean({ error: 'warnNearSeatLimit is true or false.' }).optional(),
})

export const DiagnosticsPatchSchema = z.strictObject({
  collectFrontendErrors: z.boolean({ error: 'collectFrontendErrors is true or false.' }).optional(),
  collectUsageTelemetry: z.boolean({ error: 'collectUsageTelemetry is true or false.' }).optional(),
  identifyUsersInReports: z.boolean({ error: 'identifyUsersInReports is true or false.' }).optional(),
})

export const SitePatchSchema = SiteSchema.partial().extend({ expectedRevision }).strict()

export const AdminSettingsPatchSchema = z.strictObject({ licensing: LicensingPatchSchema.optional(), diagnostics: DiagnosticsPatchSchema.optional() })

/** The form of /settings/admin: one checkbox per switch (fields named licensing.enforceSeatLimit, …); an unticked box is off. */
export const AdminSettingsFormSchema = z.object({
  licensing: z.object({ enforceSeatLimit: z.boolean().default(false), warnNearSeatLimit: z.boolean().default(false) }).prefault({}),
  diagnostics: z
    .object({ collectFrontendErrors: z.boolean().default(false), collectUsageTelemetry: z.boolean().default(false), identifyUsersInReports: z.boolean().default(false) })
    .prefault({}),
})

import { z } from 'zod'

/**
 * The sign-in and account forms' schemas, used by the web forms (conform) and by the backend alike,
 * so a rule and its message live in one place.
 */
export const PASSWORD_MIN = 8
export const PASSWORD_MAX = 1024

// Deliberately simple: one @, something on each side, a dot in the domain. The mailbox proves the rest.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

export const emailField = z
  .string({ error: 'Enter your e-mail address.' })
  .trim()
  .min(1, 'Enter your e-mail address.')
  .max(254, 'An e-mail address has at most 254 characters.')
  .regex(EMAIL_PATTERN, 'Enter an e-mail address like name@example.com.')

export const newPasswordField = z
  .string({ error: 'Enter a password.' })
  .min(PASSWORD_MIN, `Use at least ${PASSWORD_MIN} characters.`)
  .max(PASSWORD_MAX, `Use at most ${PASSWORD_MAX} characters.`)

export const LoginSchema = z.object({
  email: emailField,
  // No length rule on sign-in: the form must not teach anyone the password policy.
  password: z.string({ error: 'Enter your password.' }).min(1, 'Enter your password.').max(PASSWORD_MAX, 'The password is too long.'),
  tenantSlug: z.string().trim().max(80).optional(),
})

export const MfaSchema = z.object({
  code: z
    .string({ error: 'Enter the 6-digit code.' })
    .transform((v) => v.replace(/\s/g, ''))
    .pipe(z.string().regex(/^\d{6}$/, 'Enter the 6-digit code from your authenticator app.')),
})

export const RegisterSchema = z.object({
  displayName: z.string({ error: 'Enter your name.' }).trim().min(1, 'Enter your name.').max(120, 'Use at most 120 characters.'),
  email: emailField,
  password: newPasswordField,
  organisationName: z
    .string({ error: 'Enter the name of your organisation.' })
    .trim()
    .min(1, 'Enter the name of your organisation.')
    .max(120, 'Use at most 120 characters.'),
})

export const TokenSchema = z.object({
  token: z.string({ error: 'The link is incomplete.' }).trim().min(16, 'The link is incomplete.').max(200, 'The link is not valid.'),
})

export const ResetRequestSchema = z.object({ email: emailField })

export const ResetConfirmSchema = TokenSchema.extend({ password: newPasswordField })

export const PasswordSetSchema = z.object({
  currentPassword: z.string({ error: 'Enter your current password.' }).min(1, 'Enter your current password.').max(PASSWORD_MAX),
  newPassword: newPasswordField,
})

/** A device's id as registration keeps it: the device's own text, trimmed, 1 to 200 characters (published for the paths that name one). */
export const DEVICE_ID_PATTERN = /^\S(?:.*\S)?$/
export const DEVICE_ID_MAX = 200

export const DeviceRegisterSchema = z.object({
  deviceId: z.string({ error: 'deviceId is required.' }).trim().min(1, 'deviceId is required.').max(DEVICE_ID_MAX),
  platform: z.string({ error: 'platform is required.' }).trim().min(1, 'platform is required.').max(40),
  name: z.string().trim().max(120).optional(),
  pushToken: z.string().trim().max(4096).optional(),
})

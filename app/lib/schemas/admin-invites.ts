import { z } from 'zod'
import { emailField, newPasswordField } from '~/lib/schemas/auth'
import { INVITE_CODE_PATTERN, INVITE_STATUSES, normaliseInviteCode } from '~/lib/admin/invites'

/**
 * The invite calls' bodies (docs/admin/invites.md), used by the backend and the web forms alike,
 * so a rule and its message live in one place.
 */

export const ROLE_KEY_VALUES = ['admin', 'read-write', 'read-only'] as const

export const roleKeyField = z.enum(ROLE_KEY_VALUES, { error: 'Choose a role: Administrator, Read & Write or Read Only.' })

const optionalText = (max: number, message: string) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), z.string().trim().max(max, message).optional())

export const inviteMessageField = optionalText(1000, 'Use at most 1000 characters.')

export const InviteCreateSchema = z.object({
  email: emailField,
  roleKey: roleKeyField,
  message: inviteMessageField,
})
export type InviteCreateInput = z.output<typeof InviteCreateSchema>

export const InviteIdSchema = z.object({
  inviteId: z.uuid({ error: 'Choose an invite.' }),
})

export const InviteTokenSchema = z.object({
  token: z.string({ error: 'The invitation link is incomplete.' }).trim().min(16, 'The invitation link is incomplete.').max(200, 'The invitation link is not valid.'),
})

export const InviteRegisterSchema = InviteTokenSchema.extend({
  displayName: z.string({ error: 'Enter your name.' }).trim().min(1, 'Enter your name.').max(120, 'Use at most 120 characters.'),
  password: newPasswordField,
})
export type InviteRegisterInput = z.output<typeof InviteRegisterSchema>

export const InviteListQuerySchema = z.object({
  status: z.preprocess((v) => (v === '' ? undefined : v), z.enum(INVITE_STATUSES, { error: 'status is pending, accepted, cancelled or expired.' }).optional()),
  after: z.string().max(200, 'The paging cursor is not valid.').optional(),
  limit: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.coerce
      .number({ error: 'limit must be a whole number from 1 to 200.' })
      .int('limit must be a whole number from 1 to 200.')
      .min(1, 'limit must be a whole number from 1 to 200.')
      .max(200, 'limit must be a whole number from 1 to 200.')
      .default(50),
  ),
})

export const ProjectInviteCreateSchema = z.object({
  roleKey: roleKeyField,
  message: inviteMessageField,
  email: z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), emailField.optional()),
  maxUses: z.preprocess(
    (v) => (v === '' || v === null ? undefined : v),
    z.coerce
      .number({ error: 'Maximum uses is a whole number from 1 to 1000.' })
      .int('Maximum uses is a whole number from 1 to 1000.')
      .min(1, 'Maximum uses is a whole number from 1 to 1000.')
      .max(1000, 'Maximum uses is a whole number from 1 to 1000.')
      .optional(),
  ),
  expiresInDays: z.preprocess(
    (v) => (v === '' || v === null ? undefined : v),
    z.coerce
      .number({ error: 'Valid for is a whole number of days from 1 to 90.' })
      .int('Valid for is a whole number of days from 1 to 90.')
      .min(1, 'Valid for is a whole number of days from 1 to 90.')
      .max(90, 'Valid for is a whole number of days from 1 to 90.')
      .optional(),
  ),
})
export type ProjectInviteCreateInput = z.output<typeof ProjectInviteCreateSchema>

export const InviteCodeSchema = z.object({
  code: z
    .string({ error: 'Enter the invite code.' })
    .max(40, 'An invite code has 8 characters, like ABCD-EFGH.')
    .transform(normaliseInviteCode)
    .pipe(z.string().min(1, 'Enter the invite code.').regex(INVITE_CODE_PATTERN, 'An invite code has 8 letters and digits, like ABCD-EFGH.')),
})

export const ProjectInviteListQuerySchema = z.object({
  after: z.string().max(200, 'The paging cursor is not valid.').optional(),
  limit: InviteListQuerySchema.shape.limit,
})

/** The /join page's "Ask to join" form (the call is POST /api/join-requests, docs/admin/join-requests). */
export const JoinRequestFormSchema = z.object({
  slug: z.string({ error: 'Enter the organisation’s short name.' }).trim().toLowerCase().min(1, 'Enter the organisation’s short name.').max(80, 'Use at most 80 characters.'),
  message: optionalText(1000, 'Use at most 1000 characters.'),
})

import { z } from 'zod'
import { ADMIN_ROLE_KEYS, MEMBERSHIP_STATUSES } from '~/lib/admin/users'
import { emailField, newPasswordField } from './auth'
import { expectedRevision } from './edit-conflict'

/** Administration › Users (docs/admin/users.md): the bodies and queries of the calls, shared by the backend and the forms. */

const NAME_MAX = 120

const roleKeyField = z.enum(ADMIN_ROLE_KEYS, { error: 'Choose a role: Administrator, Read & Write or Read Only.' })

/** Optional text that may be cleared: an empty string is "no value" (null). */
const clearableText = (label: string) =>
  z
    .string({ error: `${label} is text.` })
    .trim()
    .max(NAME_MAX, `${label} has at most ${NAME_MAX} characters.`)
    .transform((v) => (v === '' ? null : v))
    .nullable()
    .optional()

/** The status a membership can be put in by an administrator. */
export const PATCH_STATUSES = ['Active', 'Suspended'] as const

export const UserPatchSchema = z.strictObject(
  {
    firstName: clearableText('First name'),
    lastName: clearableText('Last name'),
    displayName: z.string({ error: 'Enter a display name.' }).trim().min(1, 'Enter a display name.').max(NAME_MAX, `A display name has at most ${NAME_MAX} characters.`).optional(),
    position: clearableText('Position'),
    status: z.enum(PATCH_STATUSES, { error: 'Status is Active or Suspended.' }).optional(),
    isMfaEnforced: z.boolean({ error: 'isMfaEnforced is true or false.' }).optional(),
    roleKey: roleKeyField.optional(),
    expectedRevision,
  },
  { error: 'Unknown field.' },
)
export type UserPatch = z.output<typeof UserPatchSchema>

export const SetPasswordSchema = z.object({ password: newPasswordField })

export const AddMemberSchema = z.object({
  email: emailField,
  roleKey: roleKeyField,
})
export type AddMemberInput = z.output<typeof AddMemberSchema>

/** Query filters as they arrive: an empty field means "no filter". */
const blank = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v)

export const USERS_PAGE_SIZE = 50
export const USERS_PAGE_MAX = 200

export const UsersQuerySchema = z.object({
  limit: z.preprocess(
    blank,
    z.coerce
      .number({ error: `limit must be a whole number from 1 to ${USERS_PAGE_MAX}.` })
      .int(`limit must be a whole number from 1 to ${USERS_PAGE_MAX}.`)
      .min(1, `limit must be a whole number from 1 to ${USERS_PAGE_MAX}.`)
      .max(USERS_PAGE_MAX, `limit must be a whole number from 1 to ${USERS_PAGE_MAX}.`)
      .default(USERS_PAGE_SIZE),
  ),
  after: z.preprocess(blank, z.string().max(400, 'The paging cursor is not valid.').optional()),
  organisationId: z.preprocess(blank, z.string().max(100, 'organisationId is an organisation id.').optional()),
  roleKey: z.preprocess(blank, roleKeyField.optional()),
  status: z.preprocess(
    (v) => {
      const b = blank(v)
      return typeof b === 'string' ? b.charAt(0).toUpperCase() + b.slice(1).toLowerCase() : b
    },
    z.enum(MEMBERSHIP_STATUSES, { error: 'status is Active, Suspended or Invited.' }).optional(),
  ),
  q: z.preprocess(blank, z.string().trim().max(200, 'Search with at most 200 characters.').optional()),
})
export type UsersQuery = z.output<typeof UsersQuerySchema>

// ---- The screens' forms (conform reads FormData: an empty field arrives as undefined) ----

const formText = (label: string) => z.string().trim().max(NAME_MAX, `${label} has at most ${NAME_MAX} characters.`).optional()

export const UserEditFormSchema = z.object({
  displayName: z.string({ error: 'Enter a display name.' }).trim().min(1, 'Enter a display name.').max(NAME_MAX, `A display name has at most ${NAME_MAX} characters.`),
  firstName: formText('First name'),
  lastName: formText('Last name'),
  position: formText('Position'),
  isMfaEnforced: z.boolean().optional(),
})
export type UserEditForm = z.output<typeof UserEditFormSchema>

/** The PATCH body of the edit form: an emptied field clears it. */
export function userEditBody(form: UserEditForm): UserPatch {
  return {
    displayName: form.displayName,
    firstName: form.firstName ?? null,
    lastName: form.lastName ?? null,
    position: form.position ?? null,
    isMfaEnforced: form.isMfaEnforced ?? false,
  }
}

export const RoleFormSchema = z.object({ roleKey: roleKeyField })

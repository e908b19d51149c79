import { z } from 'zod'
import { expectedRevision, recordRevision } from './edit-conflict'
import { emailField } from '~/lib/schemas/auth'
import { InviteListQuerySchema, inviteMessageField } from '~/lib/schemas/admin-invites'
import { FEATURE_KEYS, LICENCE_SOURCES, LICENCE_STATUSES, PLAN_KEYS, type Licence } from '~/lib/licensing/plans'
import type { CreatedOrganisation, Entitlements, MyOrganisation, Seat, SeatCounts, SeatPage, SeatStanding } from '~/lib/licensing/seats'

/**
 * Organisations, licences and seats (issue 16, docs/licensing.md): the calls' bodies, used by the
 * backend and the forms alike, and their answers as published in /api/openapi.json.
 */

export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{1,46}[a-z0-9])$/

const optionalText = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), schema.optional())

export const TenantCreateSchema = z.object({
  name: z.string({ error: 'Enter the organisation’s name.' }).trim().min(2, 'Use at least 2 characters.').max(120, 'Use at most 120 characters.'),
  slug: optionalText(
    z
      .string()
      .trim()
      .toLowerCase()
      .regex(SLUG_PATTERN, 'Use 3 to 48 lower-case letters, digits and dashes, starting and ending with a letter or digit.'),
  ),
})
export type TenantCreateInput = z.output<typeof TenantCreateSchema>

/** PATCH /api/tenants/{tenantId}/license (platform operators): the fields sent change. */
export const LicencePatchSchema = z
  .strictObject({
    plan: z.enum(PLAN_KEYS, { error: 'plan is free, team or business.' }).optional(),
    seats: z.number({ error: 'seats is a whole number.' }).int('seats is a whole number.').min(1, 'seats is at least 1.').max(100_000, 'seats is at most 100000.').optional(),
    validUntilUtc: z.iso.datetime({ error: 'validUntilUtc is an ISO 8601 date and time, or null.' }).nullable().optional(),
    status: z.enum(LICENCE_STATUSES, { error: 'status is active, trialing, past_due, cancelled or expired.' }).optional(),
    expectedRevision,
  })
  .refine(({ expectedRevision: _revision, ...change }) => Object.values(change).some((v) => v !== undefined), { error: 'Send at least one of plan, seats, validUntilUtc, status.' })
export type LicencePatch = z.output<typeof LicencePatchSchema>

/** POST /api/tenants/{tenantId}/seats/invite: a member's seat (administrators are invited apart). */
export const SeatInviteSchema = z.object({
  email: emailField,
  roleKey: z.enum(['read-write', 'read-only'], { error: 'Choose a role: Read & Write or Read Only.' }),
  message: inviteMessageField,
})

/** POST /api/tenants/{tenantId}/admins/invite. */
export const AdminInviteSchema = z.object({ email: emailField, message: inviteMessageField })

export const TenantParam = z.object({ tenantId: z.string().max(100) })
export const SeatParam = z.object({ seatId: z.string().max(100) })

/** The same paging as the invite list: `after`, and `limit` 1–200 (50). */
export const SeatListQuerySchema = InviteListQuerySchema.pick({ after: true, limit: true })

/** The revoke form of /settings/entitlements. */
export const SeatRevokeFormSchema = z.object({ seatId: z.uuid({ error: 'Choose a seat.' }) })
export const SwitchFormSchema = z.object({ tenantId: z.uuid({ error: 'Choose an organisation.' }) })

// ---- Answers ----

const utc = z.iso.datetime().describe('ISO 8601, UTC.')
const count = z.number().int().min(0)

export const LicenceSchema = z.object({
  tenantId: z.uuid(),
  plan: z.enum(PLAN_KEYS),
  planName: z.string(),
  seats: count,
  validUntilUtc: utc.nullable(),
  status: z.enum(LICENCE_STATUSES),
  source: z.enum(LICENCE_SOURCES),
  updatedAtUtc: utc.nullable(),
  revision: recordRevision,
}).meta({ id: 'Licence' }) satisfies z.ZodType<Licence>

export const SeatCountsSchema = z.object({ total: count, used: count, reserved: count, free: count }).meta({ id: 'SeatCounts' }) satisfies z.ZodType<SeatCounts>

/** The one answer about seats (server/domain/licensing/seats.ts seatStanding) every screen words the same way. */
export const SeatStandingSchema = SeatCountsSchema.extend({ enforced: z.boolean(), nearLimit: z.boolean(), plan: z.enum(PLAN_KEYS), planName: z.string(), lapsed: z.boolean() })
  .meta({ id: 'SeatStanding' }) satisfies z.ZodType<SeatStanding>

export const SeatSchema = z.object({
  id: z.uuid(),
  userId: z.uuid(),
  displayName: z.string(),
  email: z.string(),
  roleKey: z.string(),
  roleName: z.string(),
  status: z.literal('active'),
  sinceUtc: utc,
}) satisfies z.ZodType<Seat>

export const SeatPageSchema = z.object({ items: z.array(SeatSchema), nextCursor: z.string().nullable(), seats: SeatCountsSchema }) satisfies z.ZodType<SeatPage>

export const EntitlementsSchema = z.object({
  tenantId: z.uuid(),
  plan: z.enum(PLAN_KEYS),
  planName: z.string(),
  licensedPlan: z.enum(PLAN_KEYS),
  status: z.enum(LICENCE_STATUSES),
  validUntilUtc: utc.nullable(),
  lapsed: z.boolean(),
  seats: SeatCountsSchema.extend({ enforced: z.boolean(), nearLimit: z.boolean() }),
  features: z.record(z.enum(FEATURE_KEYS), z.boolean()),
  limits: z.object({ storageBytes: count, maxSeats: count }),
  isAdmin: z.boolean(),
}).meta({ id: 'Entitlements' }) satisfies z.ZodType<Entitlements>

export const MyOrganisationSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  roleKey: z.string(),
  roleName: z.string(),
  status: z.enum(['active', 'suspended', 'invited']),
  isCurrent: z.boolean(),
  isDefault: z.boolean(),
}).meta({ id: 'MyOrganisation' }) satisfies z.ZodType<MyOrganisation>

export const CreatedOrganisationSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  roleKey: z.literal('admin'),
  createdAtUtc: utc,
}).meta({ id: 'CreatedOrganisation' }) satisfies z.ZodType<CreatedOrganisation>

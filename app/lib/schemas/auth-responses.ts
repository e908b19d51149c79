import { z } from 'zod'
import type { Session } from '~/lib/auth/session'

/**
 * The sign-in calls' answers (docs/auth.md), as published in /api/openapi.json (named components)
 * and checked against every answer in the tests (schema incidents). Session mirrors
 * app/lib/auth/session.ts (`satisfies`).
 */

const utc = z.iso.datetime().describe('ISO 8601, UTC.')

export const SessionSchema = z
  .object({
    userId: z.uuid(),
    displayName: z.string(),
    email: z.string(),
    roles: z.array(z.string()),
    tenantId: z.uuid(),
    tenantName: z.string(),
    tenantSlug: z.string(),
    featureFlags: z.record(z.string(), z.unknown()),
    syncCursor: z.object({ value: z.string(), expiresAtUtc: utc }).nullable(),
    issuedAtUtc: utc,
    sessionExpiresAtUtc: utc,
    correlationId: z.string(),
    kind: z.enum(['admin', 'user']),
    adminUiAllowed: z.boolean(),
    requiresMfa: z.boolean(),
    mfaEnrollment: z.boolean(),
  })
  .meta({ id: 'Session' }) satisfies z.ZodType<Session>

export const OwnDeviceSchema = z
  .object({ deviceId: z.string(), platform: z.string(), name: z.string().nullable(), registeredAtUtc: utc, lastSeenAtUtc: utc, revokedAtUtc: utc.nullable() })
  .meta({ id: 'OwnDevice' })

export const OwnDeviceListSchema = z.object({ items: z.array(OwnDeviceSchema) })

/** The same component as Settings' enrolment (MfaEnrollment). */
export { MfaEnrollmentSchema as AuthEnrollmentSchema } from './settings-responses'

/** The answers that only say what happened: verification-sent, verified, reset-sent, password-reset. */
export const AuthStatusSchema = <S extends string>(status: S, extra: z.ZodRawShape = {}) => z.object({ status: z.literal(status), ...extra })

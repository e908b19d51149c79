import { and, eq, sql } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { memberships, mfaSecrets, tenants, users } from '#server/db/schema'
import { withUser } from '#server/db/tenancy'
import { Problem } from '#server/http/problem'
import { ERROR_CODES } from '~/lib/constants'
import { recordAudit } from '../audit'
import { dummyPasswordHash, hashPassword, needsRehash, verifyPassword } from './passwords'
import { createSession, type AuthSession, type SessionKind } from './sessions'
import { clearSignInFailures, recordSignInFailure, signInWait, throttled } from './throttle'

export type SignInInput = {
  email: string
  password: string
  tenantSlug?: string | undefined
  kind: SessionKind
  ip: string
  userAgent: string | undefined
  correlationId: string
}

const invalidCredentials = () =>
  new Problem({
    status: 401,
    title: 'Sign-in failed',
    detail: 'The e-mail address or password is incorrect.',
    code: 'KR_INVALID_CREDENTIALS',
    remediation: 'Check both and try again, or reset your password.',
  })

export function userStatusProblem(status: string): Problem | undefined {
  if (status === 'active') return undefined
  if (status === 'blocked') {
    return new Problem({
      status: 403,
      title: 'Account blocked',
      detail: 'Your account has been blocked. Contact your administrator.',
      code: ERROR_CODES.userBlocked,
    })
  }
  return new Problem({
    status: 403,
    title: 'Account not active',
    detail: 'Your account is not active. Contact your administrator.',
    code: ERROR_CODES.userNotActive,
  })
}

/**
 * Password sign-in, first step. Answers the same way, in about the same time, whether or not the
 * address has an account; reveals account state (blocked, unverified) only after a correct password.
 * A sign-in that needs a second factor yields a session that can do nothing but finish it.
 */
export async function signIn(db: Database, input: SignInInput, now: Date): Promise<{ token: string; session: AuthSession }> {
  const keys = { email: input.email, ip: input.ip }
  const wait = await signInWait(db, keys, now)
  if (wait > 0) throw throttled(wait)

  const [user] = await db
    .select()
    .from(users)
    .where(sql`lower(${users.email}) = ${input.email.trim().toLowerCase()}`)
    .limit(1)
  const passwordOk = await verifyPassword(input.password, user?.passwordHash ?? (await dummyPasswordHash()))

  if (!user || !passwordOk) {
    const locked = await recordSignInFailure(db, keys, now)
    // Whichever counter this failure filled, the answer and the audit trail are the same.
    await recordAudit(db, {
      action: locked ? 'auth.lockout' : 'auth.signin.failed',
      actorUserId: user?.id,
      ip: input.ip,
      correlationId: input.correlationId,
      data: { kind: input.kind, ...(locked && { lockedBy: locked.lockedBy }) },
    })
    if (locked) throw throttled(locked.wait)
    throw invalidCredentials()
  }

  const statusProblem = userStatusProblem(user.status)
  if (statusProblem) throw statusProblem
  if (!user.emailVerifiedAt) {
    throw new Problem({
      status: 403,
      title: 'E-mail not verified',
      detail: 'Verify your e-mail address first: open the link in the e-mail we sent you.',
      code: 'KR_EMAIL_NOT_VERIFIED',
    })
  }

  const membership = await chooseMembership(db, user.id, input.tenantSlug)
  if (input.kind === 'admin' && membership.roleKey !== 'admin') {
    throw new Problem({
      status: 403,
      title: 'Admin sign-in not allowed',
      detail: 'This account is not an administrator of the organisation. Use the user sign-in.',
      code: 'KR_NOT_ADMIN',
    })
  }

  await clearSignInFailures(db, keys)
  // A hash made before the cost was raised is made again now that the password is at hand.
  if (user.passwordHash && needsRehash(user.passwordHash)) {
    await db.update(users).set({ passwordHash: await hashPassword(input.password) }).where(eq(users.id, user.id))
  }
  return openSignedInSession(
    db,
    { userId: user.id, userMfaEnforced: user.mfaEnforced, membership, kind: input.kind, ip: input.ip, userAgent: input.userAgent, correlationId: input.correlationId },
    now,
  )
}

export type SignedInSessionInput = {
  userId: string
  userMfaEnforced: boolean
  membership: ChosenMembership
  kind: SessionKind
  ip: string
  userAgent: string | undefined
  correlationId: string
  /**
   * The second factor was already proven elsewhere: an identity provider whose ID token asserts
   * multi-factor authentication (server/domain/oidc/mfa-assertion.ts). Only then is it skipped.
   */
  secondFactorAsserted?: boolean
  /** How the person proved who they are, for the audit trail. */
  method?: 'password' | 'oidc'
}

/**
 * The end of every sign-in (password or identity provider): decides whether a second factor is
 * due and opens the session. Admin sign-in always takes one; user sign-in when the person is
 * enrolled or it is enforced for them or their organisation; unless it was asserted already.
 */
export async function openSignedInSession(db: Database, input: SignedInSessionInput, now: Date): Promise<{ token: string; session: AuthSession }> {
  const [secret] = await db
    .select({ confirmedAt: mfaSecrets.confirmedAt })
    .from(mfaSecrets)
    .where(eq(mfaSecrets.userId, input.userId))
  const enrolled = Boolean(secret?.confirmedAt)
  const due = input.kind === 'admin' || enrolled || input.userMfaEnforced || input.membership.tenantMfaEnforced
  const requiresMfa = due && !input.secondFactorAsserted

  const created = await createSession(
    db,
    {
      userId: input.userId,
      tenantId: input.membership.tenantId,
      kind: input.kind,
      requiresMfa,
      mfaEnrollment: requiresMfa && !enrolled,
      ip: input.ip,
      userAgent: input.userAgent,
    },
    now,
  )
  if (!requiresMfa) {
    await recordAudit(db, {
      tenantId: input.membership.tenantId,
      actorUserId: input.userId,
      action: 'auth.signin',
      ip: input.ip,
      correlationId: input.correlationId,
      data: { kind: input.kind, ...(input.method === 'oidc' && { method: 'oidc', secondFactorAsserted: Boolean(input.secondFactorAsserted) }) },
    })
  }
  return created
}

export type ChosenMembership = { tenantId: string; roleKey: string; tenantMfaEnforced: boolean }

/** The organisation a sign-in lands in: the one asked for, else the default, else the oldest. */
export async function chooseMembership(db: Database, userId: string, tenantSlug: string | undefined): Promise<ChosenMembership> {
  const rows = await withUser(db, userId, (tx) =>
    tx
      .select({
        tenantId: memberships.tenantId,
        roleKey: memberships.roleKey,
        status: memberships.status,
        isDefault: memberships.isDefault,
        slug: tenants.slug,
        tenantMfaEnforced: tenants.mfaEnforced,
        createdAt: memberships.createdAt,
      })
      .from(memberships)
      .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
      .where(and(eq(memberships.userId, userId), eq(memberships.status, 'active'))),
  )
  const wanted = tenantSlug
    ? rows.find((r) => r.slug === tenantSlug.trim().toLowerCase())
    : (rows.find((r) => r.isDefault) ?? [...rows].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())[0])
  if (!wanted) {
    throw new Problem({
      status: 403,
      title: 'No organisation',
      detail: tenantSlug
        ? 'Your account does not belong to that organisation.'
        : 'Your account does not belong to an active organisation. Contact your administrator.',
      code: 'KR-TENANT-NO-MEMBERSHIP',
    })
  }
  return { tenantId: wanted.tenantId, roleKey: wanted.roleKey, tenantMfaEnforced: wanted.tenantMfaEnforced }
}

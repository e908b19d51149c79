import { and, eq, gt, isNull, sql } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { authTokens, users } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import { ensurePasswordPolicyIn } from '#server/domain/config/password-policy'
import { createOrganisation } from '#server/domain/licensing/organisations'
import { Problem } from '#server/http/problem'
import type { CreatedOrganisation } from '~/lib/licensing/seats'
import { recordAudit } from '../audit'
import { enqueueMail } from '../mail'
import { hashPassword, verifyPassword } from './passwords'
import { revokeAllSessions } from './sessions'
import { clearWrongGuesses, guessWait, recordWrongGuess, throttled } from './throttle'
import { hashToken, newToken } from './tokens'

type Ctx = { ip: string; correlationId: string; publicUrl: string }

const VERIFY_TTL_MS = 24 * 60 * 60_000
const RESET_TTL_MS = 60 * 60_000

export type Registration = { displayName: string; email: string; password: string; organisationName: string }

/**
 * Self-registration creates the person's own organisation, with them as its administrator, and
 * sends a verification link. If the address already has an account, the mail says so instead.
 * The caller answers before this runs (after-response work), and both paths hash the password,
 * so neither the answer nor its timing tells which addresses are registered.
 */
export async function registerSelf(db: Database, input: Registration, ctx: Ctx, now: Date): Promise<void> {
  const email = input.email.trim()
  const passwordHash = await hashPassword(input.password)
  const { token, hash } = newToken()
  const userId = await db.transaction(async (tx) => {
    // Registered already, or by a registration running at this moment: no second account.
    const [user] = await tx
      .insert(users)
      .values({ email, displayName: input.displayName.trim(), passwordHash })
      .onConflictDoNothing()
      .returning({ id: users.id })
    if (!user) return undefined
    await tx.insert(authTokens).values({ tokenHash: hash, userId: user.id, purpose: 'verify-email', expiresAt: new Date(now.getTime() + VERIFY_TTL_MS) })
    return user.id
  })
  if (!userId) {
    await enqueueMail(db, {
      to: email,
      template: 'account-exists',
      variables: { publicUrl: ctx.publicUrl, loginUrl: `${ctx.publicUrl}/auth/login`, forgotPasswordUrl: `${ctx.publicUrl}/auth/forgot-password` },
    })
    return
  }
  // The same organisation POST /api/tenants makes: its administrator and the default licence.
  let organisation: CreatedOrganisation
  try {
    organisation = await createOrganisation(db, { name: input.organisationName, adminUserId: userId, isDefault: true }, ctx, now)
  } catch (error) {
    // No account without its organisation: the registrant may simply register again.
    await db.delete(users).where(eq(users.id, userId))
    throw error
  }
  const created = { user: userId, tenant: organisation.id }
  await enqueueMail(db, {
    tenantId: created.tenant,
    to: email,
    template: 'verify-email',
    variables: { publicUrl: ctx.publicUrl, recipientName: input.displayName.trim(), verifyUrl: `${ctx.publicUrl}/auth/verify-email?token=${token}` },
  })
  await recordAudit(db, { tenantId: created.tenant, actorUserId: created.user, action: 'auth.registered', ip: ctx.ip, correlationId: ctx.correlationId })
}

const invalidLink = () =>
  new Problem({
    status: 400,
    title: 'Invalid link',
    detail: 'This link is invalid or has expired.',
    code: 'KR_TOKEN_INVALID',
    remediation: 'Request a new e-mail and use the newest link.',
    errors: { token: ['This link is invalid or has expired.'] },
  })

/** Consumes a one-time token atomically: a link works once. */
async function consumeToken(db: Database, token: string, purpose: 'verify-email' | 'reset-password', now: Date): Promise<string> {
  const [row] = await db
    .update(authTokens)
    .set({ usedAt: now })
    .where(and(eq(authTokens.tokenHash, hashToken(token)), eq(authTokens.purpose, purpose), isNull(authTokens.usedAt), gt(authTokens.expiresAt, now)))
    .returning({ userId: authTokens.userId })
  if (!row) throw invalidLink()
  return row.userId
}

export async function verifyEmail(db: Database, token: string, ctx: Ctx, now: Date): Promise<void> {
  const userId = await consumeToken(db, token, 'verify-email', now)
  await db.update(users).set({ emailVerifiedAt: now, updatedAt: now }).where(eq(users.id, userId))
  await recordAudit(db, { actorUserId: userId, action: 'auth.email.verified', ip: ctx.ip, correlationId: ctx.correlationId })
}

/** Sends a link only to an existing, usable account; the caller answers the same before it runs. */
export async function requestPasswordReset(db: Database, email: string, ctx: Ctx, now: Date): Promise<void> {
  const [user] = await db
    .select({ id: users.id, email: users.email, status: users.status })
    .from(users)
    .where(sql`lower(${users.email}) = ${email.trim().toLowerCase()}`)
  if (!user || user.status !== 'active') return
  const { token, hash } = newToken()
  await db.insert(authTokens).values({ tokenHash: hash, userId: user.id, purpose: 'reset-password', expiresAt: new Date(now.getTime() + RESET_TTL_MS) })
  await enqueueMail(db, {
    to: user.email,
    template: 'reset-password',
    variables: { publicUrl: ctx.publicUrl, resetUrl: `${ctx.publicUrl}/auth/forgot-password?token=${token}` },
  })
  await recordAudit(db, { actorUserId: user.id, action: 'auth.password.reset.requested', ip: ctx.ip, correlationId: ctx.correlationId })
}

/** Sets the new password, signs the account out everywhere, and counts as proof of the mailbox. */
export async function confirmPasswordReset(db: Database, token: string, password: string, ctx: Ctx, now: Date): Promise<void> {
  const userId = await consumeToken(db, token, 'reset-password', now)
  // Older links of the same account die with this one: none may set the password again.
  await db
    .update(authTokens)
    .set({ usedAt: now })
    .where(and(eq(authTokens.userId, userId), eq(authTokens.purpose, 'reset-password'), isNull(authTokens.usedAt)))
  const passwordHash = await hashPassword(password)
  await db
    .update(users)
    .set({ passwordHash, updatedAt: now, emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, ${now})` })
    .where(eq(users.id, userId))
  await revokeAllSessions(db, userId, now)
  await recordAudit(db, { actorUserId: userId, action: 'auth.password.reset', ip: ctx.ip, correlationId: ctx.correlationId })
}

/** A signed-in user changes their password; their other sessions end. */
export async function changePassword(
  db: Database,
  session: { id: string; userId: string; tenantId: string },
  input: { currentPassword: string; newPassword: string },
  ctx: Omit<Ctx, 'publicUrl'>,
  now: Date,
): Promise<void> {
  // Someone at an unlocked, signed-in screen must not be able to guess the password at leisure.
  const wait = await guessWait(db, 'passwordSet', session.userId, now)
  if (wait > 0) throw throttled(wait)
  const [user] = await db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, session.userId))
  if (!user?.passwordHash || !(await verifyPassword(input.currentPassword, user.passwordHash))) {
    const lockSeconds = await recordWrongGuess(db, 'passwordSet', session.userId, now)
    if (lockSeconds) {
      await recordAudit(db, { tenantId: session.tenantId, actorUserId: session.userId, action: 'auth.lockout', ip: ctx.ip, correlationId: ctx.correlationId, data: { lockedBy: 'password-set' } })
      throw throttled(lockSeconds)
    }
    throw new Problem({
      status: 400,
      title: 'Invalid request',
      detail: 'The current password is not correct.',
      code: 'KR_VALIDATION',
      errors: { currentPassword: ['The current password is not correct.'] },
    })
  }
  await clearWrongGuesses(db, 'passwordSet', session.userId)
  await withTenant(db, session.tenantId, (tx) => ensurePasswordPolicyIn(tx, session.tenantId, input.newPassword, 'newPassword'))
  await db.update(users).set({ passwordHash: await hashPassword(input.newPassword), updatedAt: now }).where(eq(users.id, session.userId))
  await revokeAllSessions(db, session.userId, now, session.id)
  await recordAudit(db, { tenantId: session.tenantId, actorUserId: session.userId, action: 'auth.password.changed', ip: ctx.ip, correlationId: ctx.correlationId })
}

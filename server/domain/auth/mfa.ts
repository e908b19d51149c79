import { and, eq, isNull, lt, or } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { mfaSecrets, users } from '#server/db/schema'
import { Problem } from '#server/http/problem'
import { recordAudit } from '../audit'
import { createSession, revokeSession, type AuthSession } from './sessions'
import { guessWait, recordWrongGuess, throttled } from './throttle'
import { checkTotp, newTotpSecret, totpUri } from './totp'

type Ctx = { ip: string; userAgent: string | undefined; correlationId: string }

/** The secret to add to an authenticator app, for a session whose second step is enrolment. */
export async function enrollment(db: Database, session: AuthSession): Promise<{ secret: string; otpauthUri: string }> {
  if (!session.requiresMfa || !session.mfaEnrollment) {
    throw new Problem({ status: 409, title: 'Conflict', detail: 'Two-factor authentication is already set up.', code: 'KR_MFA_ALREADY_ENROLLED' })
  }
  const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, session.userId))
  if (!user) throw new Problem({ status: 401, title: 'Unauthorized', code: 'KR_UNAUTHENTICATED' })
  return pendingSecret(db, session.userId, user.email)
}

/**
 * The unconfirmed secret of an enrolment (sign-in's second step, or Settings › User): made once and
 * answered again until a code confirms it. A confirmed one is never replaced this way — it may have
 * been confirmed meanwhile in another browser, and a password alone must not swap it.
 */
export async function pendingSecret(db: Database, userId: string, email: string): Promise<{ secret: string; otpauthUri: string }> {
  const [existing] = await db.select({ secret: mfaSecrets.secret, confirmedAt: mfaSecrets.confirmedAt }).from(mfaSecrets).where(eq(mfaSecrets.userId, userId))
  if (existing?.confirmedAt) {
    throw new Problem({ status: 409, title: 'Conflict', detail: 'Two-factor authentication is already set up.', code: 'KR_MFA_ALREADY_ENROLLED' })
  }
  let secret = existing?.secret
  if (!secret) {
    secret = newTotpSecret()
    await db
      .insert(mfaSecrets)
      .values({ userId, secret })
      .onConflictDoUpdate({ target: mfaSecrets.userId, set: { secret, confirmedAt: null, lastUsedStep: null } })
  }
  return { secret, otpauthUri: totpUri(secret, email) }
}

/**
 * Finishes the second step: checks the code (each code is accepted once), confirms a new
 * enrolment, and swaps the half-signed-in session for a full one with a fresh token.
 */
export async function verifyMfa(db: Database, session: AuthSession, code: string, ctx: Ctx, now: Date): Promise<{ token: string; session: AuthSession }> {
  if (!session.requiresMfa) {
    throw new Problem({ status: 409, title: 'Conflict', detail: 'This session has already completed two-factor authentication.', code: 'KR_MFA_NOT_PENDING' })
  }
  const wait = await guessWait(db, 'mfa', session.userId, now)
  if (wait > 0) throw throttled(wait)

  const [secret] = await db.select().from(mfaSecrets).where(eq(mfaSecrets.userId, session.userId))
  if (!secret || (!secret.confirmedAt && !session.mfaEnrollment)) {
    throw new Problem({ status: 409, title: 'Conflict', detail: 'Set up an authenticator app first.', code: 'KR_MFA_NOT_ENROLLED' })
  }
  const result = await checkTotp(secret.secret, code.replace(/\s/g, ''), now, secret.lastUsedStep)
  // Claim the time step atomically so the same code cannot be used twice, even concurrently.
  const claimed =
    result.valid &&
    (
      await db
        .update(mfaSecrets)
        .set({ lastUsedStep: result.timeStep, ...(session.mfaEnrollment && { confirmedAt: now }) })
        .where(and(eq(mfaSecrets.userId, session.userId), or(isNull(mfaSecrets.lastUsedStep), lt(mfaSecrets.lastUsedStep, result.timeStep))))
        .returning({ userId: mfaSecrets.userId })
    ).length === 1

  if (!claimed) {
    const lockSeconds = await recordWrongGuess(db, 'mfa', session.userId, now)
    await recordAudit(db, { tenantId: session.tenantId, actorUserId: session.userId, action: lockSeconds ? 'auth.lockout' : 'auth.mfa.failed', ip: ctx.ip, correlationId: ctx.correlationId })
    if (lockSeconds) throw throttled(lockSeconds)
    throw new Problem({
      status: 400,
      title: 'Invalid request',
      detail: 'The code is not correct or has already been used.',
      code: 'KR_MFA_INVALID',
      errors: { code: ['The code is not correct or has already been used. Enter the current code from your authenticator app.'] },
    })
  }

  await revokeSession(db, session.id, now)
  const full = await createSession(
    db,
    { userId: session.userId, tenantId: session.tenantId, kind: session.kind, requiresMfa: false, mfaEnrollment: false, ip: ctx.ip, userAgent: ctx.userAgent },
    now,
  )
  const audit = { tenantId: session.tenantId, actorUserId: session.userId, ip: ctx.ip, correlationId: ctx.correlationId }
  if (session.mfaEnrollment) await recordAudit(db, { ...audit, action: 'auth.mfa.enrolled' })
  await recordAudit(db, { ...audit, action: 'auth.mfa.verified' })
  await recordAudit(db, { ...audit, action: 'auth.signin', data: { kind: session.kind } })
  return full
}

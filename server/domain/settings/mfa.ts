import { and, eq, isNull, lt, or } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { mfaSecrets, users } from '#server/db/schema'
import { recordAudit } from '#server/domain/audit'
import { guessWait, recordWrongGuess, throttled } from '#server/domain/auth/throttle'
import { pendingSecret } from '#server/domain/auth/mfa'
import { checkTotp } from '#server/domain/auth/totp'
import { Problem } from '#server/http/problem'
import type { MfaEnrollment } from '~/lib/settings/settings'
import type { Meta } from './user'

/**
 * Two-factor authentication from /settings/user (issue 14, docs/settings.md): enrol an
 * authenticator (unconfirmed until a code proves it), confirm it with a code, remove it with the
 * current code unless it is required of the person. The TOTP rules and the wrong-guess throttle
 * are the sign-in's (server/domain/auth/totp.ts, throttle.ts): a code is accepted once.
 */

type Actor = { userId: string; tenantId: string; enforced: boolean }

const alreadyEnrolled = () => new Problem({ status: 409, title: 'Conflict', detail: 'Two-factor authentication is already set up.', code: 'KR_MFA_ALREADY_ENROLLED' })

/** POST /api/settings/user/mfa/enrollment: a secret to add to an authenticator app (the same one until confirmed). */
export async function startEnrollment(db: Database, actor: Actor): Promise<MfaEnrollment> {
  const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, actor.userId))
  if (!user) throw new Error('a session without its user')
  return pendingSecret(db, actor.userId, user.email)
}

/** Checks the code and claims its time step atomically (each code works once); a wrong one counts towards the lock. */
async function claimCode(db: Database, actor: Actor, code: string, meta: Meta, now: Date, confirm: boolean): Promise<void> {
  const wait = await guessWait(db, 'mfa', actor.userId, now)
  if (wait > 0) throw throttled(wait)
  const [secret] = await db.select().from(mfaSecrets).where(eq(mfaSecrets.userId, actor.userId))
  const result = secret ? await checkTotp(secret.secret, code.replace(/\s/g, ''), now, secret.lastUsedStep) : { valid: false as const }
  const claimed =
    result.valid &&
    (
      await db
        .update(mfaSecrets)
        .set({ lastUsedStep: result.timeStep, ...(confirm && { confirmedAt: now }) })
        .where(and(eq(mfaSecrets.userId, actor.userId), or(isNull(mfaSecrets.lastUsedStep), lt(mfaSecrets.lastUsedStep, result.timeStep))))
        .returning({ userId: mfaSecrets.userId })
    ).length === 1
  if (claimed) return
  const lockSeconds = await recordWrongGuess(db, 'mfa', actor.userId, now)
  await recordAudit(db, {
    tenantId: actor.tenantId,
    actorUserId: actor.userId,
    action: lockSeconds ? 'auth.lockout' : 'auth.mfa.failed',
    ip: meta.ip,
    correlationId: meta.correlationId,
  })
  if (lockSeconds) throw throttled(lockSeconds)
  throw new Problem({
    status: 400,
    title: 'Invalid request',
    detail: 'The code is not correct or has already been used.',
    code: 'KR_MFA_INVALID',
    errors: { code: ['The code is not correct or has already been used. Enter the current code from your authenticator app.'] },
  })
}

/** POST /api/settings/user/mfa/confirm: the first code from the app turns two-factor authentication on. */
export async function confirmEnrollment(db: Database, actor: Actor, code: string, meta: Meta, now: Date): Promise<void> {
  const [secret] = await db.select({ confirmedAt: mfaSecrets.confirmedAt }).from(mfaSecrets).where(eq(mfaSecrets.userId, actor.userId))
  if (!secret) throw new Problem({ status: 409, title: 'Conflict', detail: 'Start setting up an authenticator app first.', code: 'KR_MFA_NOT_ENROLLED' })
  if (secret.confirmedAt) throw alreadyEnrolled()
  await claimCode(db, actor, code, meta, now, true)
  await recordAudit(db, {
    tenantId: actor.tenantId,
    actorUserId: actor.userId,
    action: 'auth.mfa.enrolled',
    targetType: 'User',
    targetId: actor.userId,
    ip: meta.ip,
    correlationId: meta.correlationId,
  })
}

/** DELETE /api/settings/user/mfa: with the current code; refused while it is required of the person. */
export async function removeMfa(db: Database, actor: Actor, code: string, meta: Meta, now: Date): Promise<void> {
  const [secret] = await db.select({ confirmedAt: mfaSecrets.confirmedAt }).from(mfaSecrets).where(eq(mfaSecrets.userId, actor.userId))
  if (!secret?.confirmedAt) throw new Problem({ status: 409, title: 'Conflict', detail: 'Two-factor authentication is not set up.', code: 'KR_MFA_NOT_ENROLLED' })
  if (actor.enforced) {
    throw new Problem({
      status: 409,
      title: 'Conflict',
      detail: 'Two-factor authentication is required for your account, so it cannot be removed.',
      code: 'KR_MFA_ENFORCED',
      remediation: 'Ask an administrator of your organisation if you need to change how you sign in.',
    })
  }
  await claimCode(db, actor, code, meta, now, false)
  await db.delete(mfaSecrets).where(eq(mfaSecrets.userId, actor.userId))
  await recordAudit(db, {
    tenantId: actor.tenantId,
    actorUserId: actor.userId,
    action: 'auth.mfa.removed',
    targetType: 'User',
    targetId: actor.userId,
    ip: meta.ip,
    correlationId: meta.correlationId,
  })
}

/** Takes back an enrolment that was started but never confirmed (Cancel on the screen). */
export async function cancelEnrollment(db: Database, actor: Actor): Promise<void> {
  await db.delete(mfaSecrets).where(and(eq(mfaSecrets.userId, actor.userId), isNull(mfaSecrets.confirmedAt)))
}

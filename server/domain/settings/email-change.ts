import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { authTokens, users } from '#server/db/schema'
import { recordAudit, recordAuditIn } from '#server/domain/audit'
import { verifyPassword } from '#server/domain/auth/passwords'
import { clearWrongGuesses, guessWait, recordWrongGuess, throttled } from '#server/domain/auth/throttle'
import { hashToken, newToken } from '#server/domain/auth/tokens'
import { enqueueMail } from '#server/domain/mail'
import type { DomainContext } from '#server/domain/tenancy/context'
import { recordChange } from '#server/domain/tenancy/change-log'
import { Problem } from '#server/http/problem'
import { isUniqueViolation } from './site'
import type { Meta } from './user'

/**
 * Changing one's e-mail address (issue 14, docs/settings.md "E-mail address"): the current password
 * proves it is the owner asking, a link goes to the NEW address (a token of purpose change-email,
 * 24 hours), and following it switches the address, which counts as verified. An address another
 * account uses is refused without saying whose it is.
 */

export const EMAIL_CHANGE_TTL_MS = 24 * 60 * 60_000

const addressTaken = () =>
  new Problem({
    status: 409,
    title: 'Conflict',
    detail: 'This e-mail address cannot be used for your account.',
    code: 'KR_EMAIL_TAKEN',
    remediation: 'Choose another address.',
    errors: { newEmail: ['This e-mail address is already in use. Choose another.'] },
  })

/** The current password of a signed-in person, throttled like the password change (someone at an unlocked screen must not guess at leisure). */
export async function checkCurrentPassword(db: Database, actor: { userId: string; tenantId: string }, password: string, meta: Meta, now: Date): Promise<void> {
  const wait = await guessWait(db, 'passwordSet', actor.userId, now)
  if (wait > 0) throw throttled(wait)
  const [user] = await db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, actor.userId))
  if (user?.passwordHash && (await verifyPassword(password, user.passwordHash))) {
    await clearWrongGuesses(db, 'passwordSet', actor.userId)
    return
  }
  const lockSeconds = await recordWrongGuess(db, 'passwordSet', actor.userId, now)
  if (lockSeconds) {
    await recordAudit(db, {
      tenantId: actor.tenantId,
      actorUserId: actor.userId,
      action: 'auth.lockout',
      ip: meta.ip,
      correlationId: meta.correlationId,
      data: { lockedBy: 'email-change' },
    })
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

/** POST /api/settings/user/email (after checkCurrentPassword): mails the confirmation link to the new address. */
export async function requestEmailChange(ctx: DomainContext, newEmail: string, meta: Meta & { publicUrl: string }): Promise<{ newEmail: string; expiresAtUtc: string }> {
  const email = newEmail.trim()
  const [me] = await ctx.tx.select({ email: users.email, displayName: users.displayName }).from(users).where(eq(users.id, ctx.actor.userId))
  if (!me) throw new Error('a session without its user')
  if (me.email.toLowerCase() === email.toLowerCase()) {
    throw new Problem({
      status: 400,
      title: 'Invalid request',
      detail: 'That is already your e-mail address.',
      code: 'KR_VALIDATION',
      errors: { newEmail: ['That is already your e-mail address.'] },
    })
  }
  const [other] = await ctx.tx
    .select({ id: users.id })
    .from(users)
    .where(sql`lower(${users.email}) = ${email.toLowerCase()}`)
    .limit(1)
  if (other) throw addressTaken()
  // One pending change at a time: an older link stops working.
  await ctx.tx
    .update(authTokens)
    .set({ usedAt: ctx.now })
    .where(and(eq(authTokens.userId, ctx.actor.userId), eq(authTokens.purpose, 'change-email'), isNull(authTokens.usedAt)))
  const { token, hash } = newToken()
  const expiresAt = new Date(ctx.now.getTime() + EMAIL_CHANGE_TTL_MS)
  await ctx.tx.insert(authTokens).values({ tokenHash: hash, userId: ctx.actor.userId, purpose: 'change-email', newEmail: email, expiresAt, createdAt: ctx.now })
  await enqueueMail(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    to: email,
    template: 'email-change',
    variables: { displayName: me.displayName, newEmail: email, confirmUrl: `${meta.publicUrl}/auth/confirm-email?token=${token}` },
  })
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'auth.email.change.requested',
    targetType: 'User',
    targetId: ctx.actor.userId,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data: { from: me.email, to: email },
    at: ctx.now,
  })
  return { newEmail: email, expiresAtUtc: expiresAt.toISOString() }
}

function linkProblem(code: 'KR_TOKEN_INVALID' | 'KR_TOKEN_EXPIRED' | 'KR_TOKEN_USED'): Problem {
  const detail = {
    KR_TOKEN_INVALID: 'This link is not valid. Check that you opened the whole link from the e-mail.',
    KR_TOKEN_EXPIRED: 'This link has expired: links to change an e-mail address work for 24 hours.',
    KR_TOKEN_USED: 'This link has already been used, or a newer link replaced it.',
  }[code]
  return new Problem({
    status: 400,
    title: 'Invalid link',
    detail,
    code,
    remediation: 'Ask for the change again in Settings › User, and follow the newest link.',
    errors: { token: [detail] },
  })
}

/**
 * POST /api/settings/user/email/confirm: works signed in or not (the link proves the mailbox).
 * Answers the new address; the caller records the realtime change when it has a tenant.
 */
export async function confirmEmailChange(db: Database, token: string, meta: Meta, now: Date): Promise<{ userId: string; email: string; previous: string }> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ id: authTokens.id, userId: authTokens.userId, newEmail: authTokens.newEmail, expiresAt: authTokens.expiresAt, usedAt: authTokens.usedAt })
      .from(authTokens)
      .where(and(eq(authTokens.tokenHash, hashToken(token)), eq(authTokens.purpose, 'change-email')))
      .for('update')
    if (!row?.newEmail) throw linkProblem('KR_TOKEN_INVALID')
    if (row.usedAt) throw linkProblem('KR_TOKEN_USED')
    if (row.expiresAt.getTime() <= now.getTime()) throw linkProblem('KR_TOKEN_EXPIRED')
    const [user] = await tx.select({ email: users.email, displayName: users.displayName }).from(users).where(eq(users.id, row.userId)).for('update')
    if (!user) throw linkProblem('KR_TOKEN_INVALID')
    const [other] = await tx
      .select({ id: users.id })
      .from(users)
      .where(sql`lower(${users.email}) = ${row.newEmail.toLowerCase()} and ${users.id} <> ${row.userId}`)
      .limit(1)
    if (other) throw addressTaken()
    await tx.update(authTokens).set({ usedAt: now }).where(eq(authTokens.id, row.id))
    try {
      await tx.update(users).set({ email: row.newEmail, emailVerifiedAt: now, updatedAt: now }).where(eq(users.id, row.userId))
    } catch (error) {
      // Registered by someone else at this very moment: the unique index decides.
      if (isUniqueViolation(error)) throw addressTaken()
      throw error
    }
    // The old address hears of it: an owner who did not make the change must not learn it by being locked out.
    await enqueueMail(tx, { to: user.email, template: 'email-changed', variables: { displayName: user.displayName, newEmail: row.newEmail } })
    return { userId: row.userId, email: row.newEmail, previous: user.email }
  })
}

/** The audit entry and realtime change of a confirmed change, in the person's organisation when the confirming browser is signed in as them. */
export async function recordEmailChanged(ctx: DomainContext, changed: { email: string; previous: string }, meta: Meta): Promise<void> {
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'auth.email.changed',
    targetType: 'User',
    targetId: ctx.actor.userId,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data: { from: changed.previous, to: changed.email },
    at: ctx.now,
  })
  await recordChange(ctx, 'User', ctx.actor.userId, 'Updated')
}

/** The audit entry of a change confirmed from a browser that is not signed in as its owner. */
export async function recordEmailChangedUntenanted(db: Database, changed: { userId: string; email: string; previous: string }, meta: Meta): Promise<void> {
  await recordAudit(db, {
    actorUserId: changed.userId,
    action: 'auth.email.changed',
    targetType: 'User',
    targetId: changed.userId,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data: { from: changed.previous, to: changed.email },
  })
}

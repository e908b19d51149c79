import { and, eq, gt, isNull } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { memberships, sessions, tenants, users } from '#server/db/schema'
import { reusableSelect, type ValueOf } from '#server/db/reusable-select'
import { withTenant } from '#server/db/tenancy'
import { sessionLifetimeMsIn } from '#server/domain/config/effective'
import type { Session, SessionKind } from '~/lib/auth/session'
import { SESSION_EXPIRY_FALLBACK_MS } from '~/lib/constants'
import { rolesFor } from '../tenancy/roles'
import { asTenantReader } from '../tenancy/context'
import { hashToken, newToken } from './tokens'

export type { SessionKind }

/** The session of the current request, as the backend sees it. */
export type AuthSession = {
  id: string
  userId: string
  tenantId: string
  kind: SessionKind
  requiresMfa: boolean
  mfaEnrollment: boolean
  issuedAt: Date
  expiresAt: Date
  maxExpiresAt: Date
  userStatus: string
}

/** Idle expiry (spec §9 fallback): every request in the second half of the window slides it on. */
export const SESSION_IDLE_MS = SESSION_EXPIRY_FALLBACK_MS
/** A half-finished sign-in (waiting for the second factor) lives this long. */
export const MFA_PENDING_MS = 5 * 60_000
/** However active, a session ends after this long; admin sessions sooner. */
export const SESSION_ABSOLUTE_MS: Record<SessionKind, number> = { user: 14 * 24 * 60 * 60_000, admin: 12 * 60 * 60_000 }

export async function createSession(
  db: Database,
  input: {
    userId: string
    tenantId: string
    kind: SessionKind
    requiresMfa: boolean
    mfaEnrollment: boolean
    ip: string
    userAgent: string | undefined
    /** A shorter absolute lifetime than the kind's (the demo session's hour). */
    maxLifetimeMs?: number | undefined
  },
  now: Date,
): Promise<{ token: string; session: AuthSession }> {
  const { token, hash } = newToken()
  // The organisation's Security › session lifetime (admin configuration) may shorten it further.
  const orgLifetime = input.requiresMfa ? MFA_PENDING_MS : await withTenant(db, input.tenantId, (tx) => sessionLifetimeMsIn(tx, input.tenantId))
  const maxLifetime = input.requiresMfa ? MFA_PENDING_MS : Math.min(input.maxLifetimeMs ?? SESSION_ABSOLUTE_MS[input.kind], orgLifetime)
  const lifetime = Math.min(input.requiresMfa ? MFA_PENDING_MS : SESSION_IDLE_MS, maxLifetime)
  const [row] = await db
    .insert(sessions)
    .values({
      tokenHash: hash,
      userId: input.userId,
      tenantId: input.tenantId,
      kind: input.kind,
      requiresMfa: input.requiresMfa,
      mfaEnrollment: input.mfaEnrollment,
      issuedAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + lifetime),
      maxExpiresAt: new Date(now.getTime() + maxLifetime),
      ip: input.ip,
      userAgent: input.userAgent?.slice(0, 400),
    })
    .returning()
  if (!row) throw new Error('session not created')
  return {
    token,
    session: {
      id: row.id,
      userId: row.userId,
      tenantId: row.tenantId,
      kind: row.kind as SessionKind,
      requiresMfa: row.requiresMfa,
      mfaEnrollment: row.mfaEnrollment,
      issuedAt: row.issuedAt,
      expiresAt: row.expiresAt,
      maxExpiresAt: row.maxExpiresAt,
      userStatus: 'active',
    },
  }
}

export async function findSession(db: Database, token: string, now: Date): Promise<AuthSession | undefined> {
  const [row] = await selectSession(db, { tokenHash: hashToken(token), now: now.toISOString() })
  if (!row) return undefined
  return { ...row, kind: row.kind as SessionKind }
}

/** Every request reads its session: drizzle builds this select once (server/db/reusable-select.ts). */
const selectSession = reusableSelect((db, value: ValueOf<{ tokenHash: string; now: string }>) =>
  db
    .select({
      id: sessions.id,
      userId: sessions.userId,
      tenantId: sessions.tenantId,
      kind: sessions.kind,
      requiresMfa: sessions.requiresMfa,
      mfaEnrollment: sessions.mfaEnrollment,
      issuedAt: sessions.issuedAt,
      expiresAt: sessions.expiresAt,
      maxExpiresAt: sessions.maxExpiresAt,
      userStatus: users.status,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, value('tokenHash')), isNull(sessions.revokedAt), gt(sessions.expiresAt, value('now'))))
    .limit(1),
)

/** Slides the idle expiry on, within the absolute lifetime. Returns the new expiry when it moved. */
export async function touchSession(db: Database, session: AuthSession, now: Date, force = false): Promise<Date | undefined> {
  if (session.requiresMfa) return undefined
  const remaining = session.expiresAt.getTime() - now.getTime()
  if (!force && remaining > SESSION_IDLE_MS / 2) return undefined
  const next = new Date(Math.min(now.getTime() + SESSION_IDLE_MS, session.maxExpiresAt.getTime()))
  if (next.getTime() <= session.expiresAt.getTime()) return undefined
  await db.update(sessions).set({ expiresAt: next, lastSeenAt: now }).where(eq(sessions.id, session.id))
  session.expiresAt = next
  return next
}

export async function revokeSession(db: Database, sessionId: string, now: Date): Promise<void> {
  await db.update(sessions).set({ revokedAt: now }).where(eq(sessions.id, sessionId))
}

export async function revokeAllSessions(db: Database, userId: string, now: Date, exceptSessionId?: string): Promise<void> {
  const sessionsOfUser = await db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)))
  for (const s of sessionsOfUser) {
    if (s.id !== exceptSessionId) await revokeSession(db, s.id, now)
  }
}

/** The flat user-session response of spec §3 (one type for the backend and the web app). */
export type SessionView = Session

export async function sessionView(db: Database, session: AuthSession, correlationId: string, defaultFlags: Record<string, unknown> = {}): Promise<SessionView> {
  // In a page's shared reads the membership, the user's names and the organisation's were read as
  // it began (one statement for the page); otherwise they are read here.
  const known = await asTenantReader(db, session, async (tx, opened) => {
    if (opened) return opened
    const [row] = await tx
      .select({ roleKey: memberships.roleKey })
      .from(memberships)
      .where(and(eq(memberships.userId, session.userId), eq(memberships.tenantId, session.tenantId)))
      .limit(1)
    return { membership: row, member: undefined }
  })
  const membership = known.membership
  const identity = known.member ?? (await identityOf(db, session))
  const roles = membership ? rolesFor(membership.roleKey) : ['User']
  return {
    userId: session.userId,
    displayName: identity.displayName,
    email: identity.email,
    roles,
    tenantId: session.tenantId,
    tenantName: identity.tenantName,
    tenantSlug: identity.tenantSlug,
    // The server's flags (FEATURE_FLAGS), each overridden by the tenant's own.
    featureFlags: { ...defaultFlags, ...identity.featureFlags },
    syncCursor: null,
    issuedAtUtc: session.issuedAt.toISOString(),
    sessionExpiresAtUtc: session.expiresAt.toISOString(),
    correlationId,
    kind: session.kind,
    // The Administration area needs an admin sign-in that passed its second factor.
    adminUiAllowed: session.kind === 'admin' && !session.requiresMfa && membership?.roleKey === 'admin',
    requiresMfa: session.requiresMfa,
    mfaEnrollment: session.mfaEnrollment,
  }
}

/** The user's names and the organisation's, read apart when no page's shared reads have them. */
async function identityOf(db: Database, session: AuthSession) {
  const [identity] = await db
    .select({ displayName: users.displayName, email: users.email, tenantName: tenants.name, tenantSlug: tenants.slug, featureFlags: tenants.featureFlags })
    .from(users)
    .innerJoin(tenants, eq(tenants.id, session.tenantId))
    .where(eq(users.id, session.userId))
    .limit(1)
  if (!identity) throw new Error('session without user or tenant')
  return identity
}

/**
 * Moves a session into another organisation of its user (issue 13: the one an invite just joined),
 * so the next page opens there. The caller has checked the membership is active. The session keeps
 * its id (its CSRF binding and device tie stay), kind and lifetimes.
 */
export async function switchSessionTenant(db: Database, session: AuthSession, tenantId: string): Promise<void> {
  await db.update(sessions).set({ tenantId }).where(eq(sessions.id, session.id))
  session.tenantId = tenantId
}

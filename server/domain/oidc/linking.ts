import { and, eq, sql } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { memberships, users } from '#server/db/schema'
import { userIdentities } from '#server/db/schema-oidc'
import { withTenant } from '#server/db/tenancy'
import { acceptInviteForVerifiedEmail } from '#server/domain/admin/invites'
import type { RequestMeta } from '#server/domain/admin/invites-shared'
import { recordAudit } from '#server/domain/audit'
import { emailUnverified, notMember } from './errors'

/**
 * Which account a person signing in through their organisation's provider is (docs/identity-provider.md
 * "Linking"). Later sign-ins: the identity (issuer + subject) already linked. A first sign-in
 * links only when the provider vouches for the address (`email_verified` true) and that address
 * is an active member of the organisation, or has a pending invitation there (which it then
 * accepts, making the account if needed). Anyone else is refused and told to ask for an invitation.
 */

export type ProviderIdentity = {
  issuer: string
  subject: string
  email: string | undefined
  emailVerified: boolean
  name: string | undefined
}

export type Organisation = { id: string; name: string; slug: string }

export async function accountFor(
  db: Database,
  identity: ProviderIdentity,
  organisation: Organisation,
  meta: RequestMeta,
  now: Date,
): Promise<{ userId: string; linked: boolean }> {
  const [known] = await db
    .select({ id: userIdentities.id, userId: userIdentities.userId })
    .from(userIdentities)
    .where(and(eq(userIdentities.issuer, identity.issuer), eq(userIdentities.subject, identity.subject)))
    .limit(1)
  if (known) {
    await db.update(userIdentities).set({ lastSignInAt: now }).where(eq(userIdentities.id, known.id))
    return { userId: known.userId, linked: false }
  }

  if (!identity.email || !identity.emailVerified) throw emailUnverified(identity.email)
  const email = identity.email
  const userId = (await activeMemberByEmail(db, email, organisation.id)) ?? (await joinByInvitation(db, identity, email, organisation, meta, now))
  if (!userId) throw notMember(email, organisation.name)

  // Two first sign-ins at once: the unique (issuer, subject) keeps one link, the other reads it.
  await db
    .insert(userIdentities)
    .values({ issuer: identity.issuer, subject: identity.subject, userId, tenantId: organisation.id, email, createdAt: now, lastSignInAt: now })
    .onConflictDoNothing()
  const [link] = await db
    .select({ userId: userIdentities.userId })
    .from(userIdentities)
    .where(and(eq(userIdentities.issuer, identity.issuer), eq(userIdentities.subject, identity.subject)))
  if (!link) throw new Error('identity link not stored')
  await recordAudit(db, {
    tenantId: organisation.id,
    actorUserId: link.userId,
    action: 'auth.oidc.linked',
    targetType: 'User',
    targetId: link.userId,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data: { issuer: identity.issuer, email },
  })
  return { userId: link.userId, linked: true }
}

async function activeMemberByEmail(db: Database, email: string, tenantId: string): Promise<string | undefined> {
  const [user] = await db
    .select({ id: users.id })
    .from(users)
    .where(sql`lower(${users.email}) = ${email.trim().toLowerCase()}`)
    .limit(1)
  if (!user) return undefined
  const [membership] = await withTenant(db, tenantId, (tx) =>
    tx
      .select({ id: memberships.id })
      .from(memberships)
      .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, user.id), eq(memberships.status, 'active')))
      .limit(1),
  )
  return membership ? user.id : undefined
}

async function joinByInvitation(db: Database, identity: ProviderIdentity, email: string, organisation: Organisation, meta: RequestMeta, now: Date): Promise<string | undefined> {
  const joined = await acceptInviteForVerifiedEmail(db, { tenantId: organisation.id, email, displayName: identity.name ?? email.split('@')[0] ?? email }, meta, now)
  return joined?.userId
}

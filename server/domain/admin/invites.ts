import { and, desc, eq, gt, isNotNull, isNull, lte, or, sql, type SQL } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { memberships, tenants, users } from '#server/db/schema'
import { invites } from '#server/db/schema-admin'
import { withTenant } from '#server/db/tenancy'
import type { RoleKey } from '#server/domain/tenancy/roles'
import { hashPassword } from '#server/domain/auth/passwords'
import { ensurePasswordPolicyIn } from '#server/domain/config/password-policy'
import { hashToken, newToken } from '#server/domain/auth/tokens'
import { enqueueMail } from '#server/domain/mail'
import { ensureFreeSeat } from '#server/domain/licensing/seats'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import { decodeCursor, encodeCursor } from '#server/domain/tenancy/paging'
import { isUuid } from '~/lib/schemas/uuid'
import { Problem, problems } from '#server/http/problem'
import type { Invite, InviteClaimed, InviteLanding, InviteStatus } from '~/lib/admin/invites'
import type { InviteCreateInput } from '~/lib/schemas/admin-invites'
import { alreadyMember, auditInvite, displayNameOf, gone, hasAnyMembership, iso, joinOrganisation, organisationOf, roleName, userByEmail, type RequestMeta } from './invites-shared'

/**
 * Invitations to the organisation (docs/admin/invites.md). An administrator invites an address
 * with a role key; the mail carries a link `/invite/{token}` valid for 7 days. The token is stored
 * as its SHA-256 only; resending makes a new token (the old link stops working). The link's holder
 * joins by claiming it signed in with that address, or by registering an account for it.
 * The status is derived: accepted, cancelled, expired (past expiresAt) or pending.
 */

export const INVITE_TTL_MS = 7 * 24 * 60 * 60_000

type InviteRow = typeof invites.$inferSelect

export function inviteStatus(row: Pick<InviteRow, 'acceptedAt' | 'cancelledAt' | 'expiresAt'>, now: Date): InviteStatus {
  if (row.acceptedAt) return 'accepted'
  if (row.cancelledAt) return 'cancelled'
  if (row.expiresAt.getTime() <= now.getTime()) return 'expired'
  return 'pending'
}

function statusWhere(status: InviteStatus, now: Date): SQL | undefined {
  switch (status) {
    case 'accepted':
      return isNotNull(invites.acceptedAt)
    case 'cancelled':
      return and(isNull(invites.acceptedAt), isNotNull(invites.cancelledAt))
    case 'expired':
      return and(isNull(invites.acceptedAt), isNull(invites.cancelledAt), lte(invites.expiresAt, now))
    case 'pending':
      return and(isNull(invites.acceptedAt), isNull(invites.cancelledAt), gt(invites.expiresAt, now))
  }
}

async function viewOf(ctx: DomainContext, row: InviteRow): Promise<Invite> {
  const [inviter] = row.invitedBy ? await ctx.tx.select({ id: users.id, displayName: users.displayName }).from(users).where(eq(users.id, row.invitedBy)) : []
  return viewWith(row, inviter ?? null, ctx.now)
}

function viewWith(row: InviteRow, inviter: { id: string; displayName: string } | null, now: Date): Invite {
  return {
    id: row.id,
    email: row.email,
    roleKey: row.roleKey,
    roleName: roleName(row.roleKey),
    message: row.message,
    status: inviteStatus(row, now),
    invitedBy: inviter,
    sendCount: row.sendCount,
    lastSentAtUtc: row.lastSentAt.toISOString(),
    expiresAtUtc: row.expiresAt.toISOString(),
    acceptedAtUtc: iso(row.acceptedAt),
    cancelledAtUtc: iso(row.cancelledAt),
    createdAtUtc: row.createdAt.toISOString(),
  }
}

function inviteNotFound(): Problem {
  return new Problem(problems.notFound('There is no such invite in this organisation.'))
}

async function findInvite(ctx: DomainContext, inviteId: string): Promise<InviteRow> {
  if (!isUuid(inviteId)) throw inviteNotFound()
  const [row] = await ctx.tx
    .select()
    .from(invites)
    .where(and(eq(invites.tenantId, ctx.actor.tenantId), eq(invites.id, inviteId)))
    .for('update')
  if (!row) throw inviteNotFound()
  return row
}

async function sendInviteMail(ctx: DomainContext, meta: RequestMeta, row: Pick<InviteRow, 'email' | 'roleKey' | 'message' | 'expiresAt'>, token: string): Promise<void> {
  const [organisation] = await ctx.tx.select({ name: tenants.name }).from(tenants).where(eq(tenants.id, ctx.actor.tenantId))
  const [inviter] = await ctx.tx.select({ displayName: users.displayName }).from(users).where(eq(users.id, ctx.actor.userId))
  const orgName = organisation?.name ?? 'an organisation'
  await enqueueMail(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    to: row.email,
    template: 'invite',
    variables: {
      publicUrl: meta.publicUrl,
      organisationName: orgName,
      inviterName: inviter?.displayName ?? 'Someone',
      roleName: roleName(row.roleKey),
      message: row.message,
      acceptUrl: inviteLink(meta, token),
      expiresAt: row.expiresAt.toUTCString(),
    },
  })
}

/** The link the mail carries; the call that made it answers it too, for an administrator to pass on when mail is queued. */
function inviteLink(meta: RequestMeta, token: string): string {
  return `${meta.publicUrl}/invite/${token}`
}

/** One pending invite per address: invites of one organisation are written one at a time. */
async function lockInvites(ctx: DomainContext): Promise<void> {
  await ctx.tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`invites:${ctx.actor.tenantId}`}, 0))`)
}

export async function createInvite(ctx: DomainContext, input: InviteCreateInput, meta: RequestMeta): Promise<Invite> {
  const email = input.email.trim()
  await lockInvites(ctx)
  const [member] = await ctx.tx
    .select({ id: memberships.id })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.tenantId, ctx.actor.tenantId), eq(memberships.status, 'active'), sql`lower(${users.email}) = ${email.toLowerCase()}`))
    .limit(1)
  if (member) throw alreadyMember(email)
  const [pending] = await ctx.tx
    .select({ id: invites.id })
    .from(invites)
    .where(and(eq(invites.tenantId, ctx.actor.tenantId), sql`lower(${invites.email}) = ${email.toLowerCase()}`, statusWhere('pending', ctx.now)))
    .limit(1)
  if (pending) {
    throw new Problem({
      status: 409,
      title: 'Conflict',
      detail: `${email} already has a pending invite. Resend it instead.`,
      code: 'KR_INVITE_PENDING',
      remediation: 'Resend or cancel the pending invite in the list.',
      errors: { email: [`${email} already has a pending invite. Resend it instead.`] },
      extensions: { inviteId: pending.id },
    })
  }
  // A pending invite reserves a seat (docs/licensing.md "Seats").
  await ensureFreeSeat(ctx)
  const { token, hash } = newToken()
  const [row] = await ctx.tx
    .insert(invites)
    .values({
      tenantId: ctx.actor.tenantId,
      email,
      roleKey: input.roleKey,
      message: input.message ?? null,
      tokenHash: hash,
      invitedBy: ctx.actor.userId,
      expiresAt: new Date(ctx.now.getTime() + INVITE_TTL_MS),
      lastSentAt: ctx.now,
      sendCount: 1,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
    .returning()
  if (!row) throw new Error('invite not created')
  await sendInviteMail(ctx, meta, row, token)
  await auditInvite(ctx, meta, 'admin.invite.created', 'Invite', row.id, { email, roleKey: row.roleKey })
  await recordChange(ctx, 'Invite', row.id, 'Created')
  return { ...(await viewOf(ctx, row)), link: inviteLink(meta, token) }
}

export async function listInvites(
  ctx: DomainContext,
  query: { status?: InviteStatus | undefined; after?: string | undefined; limit: number },
): Promise<{ items: Invite[]; nextCursor: string | null }> {
  const cursor = decodeCursor(query.after)
  const rows = await ctx.tx
    .select({ invite: invites, inviter: { id: users.id, displayName: users.displayName } })
    .from(invites)
    .leftJoin(users, eq(users.id, invites.invitedBy))
    .where(
      and(
        eq(invites.tenantId, ctx.actor.tenantId),
        query.status ? statusWhere(query.status, ctx.now) : undefined,
        cursor
          ? or(
              sql`${invites.createdAt} < ${cursor.createdAt.toISOString()}::timestamptz`,
              and(sql`${invites.createdAt} = ${cursor.createdAt.toISOString()}::timestamptz`, sql`${invites.id} < ${cursor.id}::uuid`),
            )
          : undefined,
      ),
    )
    .orderBy(desc(invites.createdAt), desc(invites.id))
    .limit(query.limit + 1)
  const page = rows.slice(0, query.limit)
  const last = page[page.length - 1]
  return {
    items: page.map((r) => viewWith(r.invite, r.inviter?.id ? { id: r.inviter.id, displayName: r.inviter.displayName } : null, ctx.now)),
    nextCursor: rows.length > query.limit && last ? encodeCursor(last.invite) : null,
  }
}

/** A new link (the old one stops working), valid for 7 days from now, mailed again. */
export async function resendInvite(ctx: DomainContext, inviteId: string, meta: RequestMeta): Promise<Invite> {
  const row = await findInvite(ctx, inviteId)
  const status = inviteStatus(row, ctx.now)
  if (status === 'accepted' || status === 'cancelled') {
    throw new Problem({
      status: 409,
      title: 'Conflict',
      detail: status === 'accepted' ? 'This invite was accepted already: there is nothing to resend.' : 'This invite was cancelled. Invite the address again instead.',
      code: status === 'accepted' ? 'KR_INVITE_USED' : 'KR_INVITE_CANCELLED',
    })
  }
  // An expired invite held no seat: sending it again reserves one.
  if (status === 'expired') await ensureFreeSeat(ctx)
  const { token, hash } = newToken()
  const [updated] = await ctx.tx
    .update(invites)
    .set({ tokenHash: hash, expiresAt: new Date(ctx.now.getTime() + INVITE_TTL_MS), lastSentAt: ctx.now, sendCount: row.sendCount + 1, updatedAt: ctx.now })
    .where(and(eq(invites.tenantId, ctx.actor.tenantId), eq(invites.id, row.id)))
    .returning()
  if (!updated) throw inviteNotFound()
  await sendInviteMail(ctx, meta, updated, token)
  await auditInvite(ctx, meta, 'admin.invite.resent', 'Invite', row.id, { email: row.email, sendCount: updated.sendCount })
  await recordChange(ctx, 'Invite', row.id, 'Updated')
  return { ...(await viewOf(ctx, updated)), link: inviteLink(meta, token) }
}

/** Cancels a pending (or expired) invite: its link stops working. Cancelling twice changes nothing. */
export async function cancelInvite(ctx: DomainContext, inviteId: string, meta: RequestMeta): Promise<Invite> {
  const row = await findInvite(ctx, inviteId)
  const status = inviteStatus(row, ctx.now)
  if (status === 'cancelled') return viewOf(ctx, row)
  if (status === 'accepted') {
    throw new Problem({
      status: 409,
      title: 'Conflict',
      detail: 'This invite was accepted already. To remove the person, change their membership in Users.',
      code: 'KR_INVITE_USED',
    })
  }
  const [updated] = await ctx.tx
    .update(invites)
    .set({ cancelledAt: ctx.now, cancelledBy: ctx.actor.userId, updatedAt: ctx.now })
    .where(and(eq(invites.tenantId, ctx.actor.tenantId), eq(invites.id, row.id)))
    .returning()
  if (!updated) throw inviteNotFound()
  await auditInvite(ctx, meta, 'admin.invite.cancelled', 'Invite', row.id, { email: row.email })
  await recordChange(ctx, 'Invite', row.id, 'Updated')
  return viewOf(ctx, updated)
}

// ---- The link's holder: no tenant is known until the token is looked up ----

function unknownInvite(): Problem {
  return new Problem({
    status: 404,
    title: 'Not found',
    detail: 'This invitation link is not valid. Check that you copied the whole link from the e-mail.',
    code: 'KR_INVITE_NOT_FOUND',
    remediation: 'Open the link from the newest invitation e-mail, or ask the organisation to invite you again.',
  })
}

/** The token's invite, looked up with the owner connection by its hash (before any tenant is known). */
async function inviteByToken(db: Database, token: string): Promise<InviteRow> {
  const [row] = await db
    .select()
    .from(invites)
    .where(eq(invites.tokenHash, hashToken(token)))
    .limit(1)
  if (!row) throw unknownInvite()
  return row
}

const STATUS_DETAIL: Record<InviteStatus, string> = {
  pending: 'This invitation is waiting for you. Accept it to join the organisation.',
  accepted: 'This invitation has been accepted already. If it was you, sign in to open the organisation.',
  cancelled: 'This invitation was cancelled by the organisation. Ask its administrator to invite you again if you still need access.',
  expired: 'This invitation has expired. Ask the organisation’s administrator to send it again: the new e-mail has a fresh link.',
}

function notPending(status: Exclude<InviteStatus, 'pending'>): Problem {
  const codes = { accepted: 'KR_INVITE_USED', cancelled: 'KR_INVITE_CANCELLED', expired: 'KR_INVITE_EXPIRED' } as const
  const remediation = {
    accepted: 'Sign in to open the organisation.',
    cancelled: 'Ask the organisation’s administrator for a new invitation.',
    expired: 'Ask the organisation’s administrator to resend the invitation.',
  } as const
  return gone(codes[status], STATUS_DETAIL[status], remediation[status])
}

/** GET /invite/{token}: who invites whom to what, and whether the link still works (unknown: 404). */
export async function inviteLanding(db: Database, token: string, now: Date): Promise<InviteLanding> {
  const row = await inviteByToken(db, token)
  const organisation = await organisationOf(db, row.tenantId)
  const status = inviteStatus(row, now)
  return {
    organisationName: organisation.name,
    email: row.email,
    roleKey: row.roleKey,
    roleName: roleName(row.roleKey),
    message: row.message,
    inviterName: await displayNameOf(db, row.invitedBy),
    status,
    statusDetail: STATUS_DETAIL[status],
    expiresAtUtc: row.expiresAt.toISOString(),
  }
}

/**
 * Uses the invite inside its organisation's transaction: it must still be pending when the row is
 * locked (two claims of one link: the second finds it accepted), then joins the person.
 */
async function acceptInvite(
  db: Database,
  found: InviteRow,
  userId: string,
  options: { isDefault: boolean; registered: boolean },
  meta: RequestMeta,
  now: Date,
): Promise<{ joined: boolean; roleKey: RoleKey }> {
  return withTenant(db, found.tenantId, async (tx) => {
    const ctx: DomainContext = { tx, actor: { tenantId: found.tenantId, userId, roleKey: found.roleKey as RoleKey }, now }
    const [row] = await tx
      .select()
      .from(invites)
      .where(and(eq(invites.tenantId, found.tenantId), eq(invites.id, found.id)))
      .for('update')
    if (!row) throw unknownInvite()
    const status = inviteStatus(row, now)
    if (status !== 'pending') throw notPending(status)
    const result = await joinOrganisation(ctx, { userId, roleKey: row.roleKey as RoleKey, isDefault: options.isDefault, reactivate: true, seatReserved: true })
    if (!result.joined) throw alreadyMember()
    await tx
      .update(invites)
      .set({ acceptedAt: now, acceptedBy: userId, updatedAt: now })
      .where(and(eq(invites.tenantId, found.tenantId), eq(invites.id, row.id)))
    await auditInvite(ctx, meta, 'admin.invite.claimed', 'Invite', row.id, { email: row.email, roleKey: row.roleKey, registered: options.registered })
    await recordChange(ctx, 'Invite', row.id, 'Updated')
    return result
  })
}

/** POST /api/invites/claim: the signed-in invitee (with the invited address) joins. */
export async function claimInvite(db: Database, session: { userId: string }, token: string, meta: RequestMeta, now: Date): Promise<InviteClaimed> {
  const found = await inviteByToken(db, token)
  const status = inviteStatus(found, now)
  if (status !== 'pending') throw notPending(status)
  const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, session.userId))
  if (!user || user.email.trim().toLowerCase() !== found.email.trim().toLowerCase()) {
    throw new Problem({
      status: 403,
      title: 'Forbidden',
      detail: `This invitation is for ${found.email}, but you are signed in as ${user?.email ?? 'someone else'}. Sign out and sign in (or register) with ${found.email} to accept it.`,
      code: 'KR_INVITE_WRONG_ACCOUNT',
      remediation: `Sign in as ${found.email}, or ask the administrator to invite the address you use.`,
    })
  }
  const isDefault = !(await hasAnyMembership(db, session.userId))
  const result = await acceptInvite(db, found, session.userId, { isDefault, registered: false }, meta, now)
  const organisation = await organisationOf(db, found.tenantId)
  return { organisationId: organisation.id, organisationName: organisation.name, organisationSlug: organisation.slug, roleKey: result.roleKey, joined: result.joined }
}

/**
 * POST /api/invites/register: no account yet. Creates the person with the invited address (verified:
 * the mail proved it), joins them, and hands back who they are so the caller signs them in. An
 * address that already has an account is told to sign in instead (409).
 */
export async function registerWithInvite(
  db: Database,
  input: { token: string; displayName: string; password: string },
  meta: RequestMeta,
  now: Date,
): Promise<InviteClaimed & { userId: string; mfaEnforced: boolean }> {
  const found = await inviteByToken(db, input.token)
  const status = inviteStatus(found, now)
  if (status !== 'pending') throw notPending(status)
  const accountExists = () =>
    new Problem({
      status: 409,
      title: 'Conflict',
      detail: `${found.email} already has a Site Portal account. Sign in with it to accept the invitation.`,
      code: 'KR_ACCOUNT_EXISTS',
      remediation: 'Sign in, then accept the invitation. Forgot the password? Reset it from the sign-in page.',
    })
  if (await userByEmail(db, found.email)) throw accountExists()
  await withTenant(db, found.tenantId, (tx) => ensurePasswordPolicyIn(tx, found.tenantId, input.password, 'password'))
  const passwordHash = await hashPassword(input.password)
  const [user] = await db
    .insert(users)
    .values({ email: found.email, displayName: input.displayName.trim(), passwordHash, emailVerifiedAt: now, createdAt: now, updatedAt: now })
    .onConflictDoNothing()
    .returning({ id: users.id })
  if (!user) throw accountExists()
  try {
    const result = await acceptInvite(db, found, user.id, { isDefault: true, registered: true }, meta, now)
    const organisation = await organisationOf(db, found.tenantId)
    return {
      userId: user.id,
      mfaEnforced: organisation.mfaEnforced,
      organisationId: organisation.id,
      organisationName: organisation.name,
      organisationSlug: organisation.slug,
      roleKey: result.roleKey,
      joined: result.joined,
    }
  } catch (error) {
    // The invite was used or cancelled meanwhile: no account without its organisation.
    await db.delete(users).where(eq(users.id, user.id))
    throw error
  }
}

/**
 * Joins through a pending invitation without its link (issue 16, docs/identity-provider.md
 * "Linking"): the organisation's identity provider vouched for the invited address (a verified
 * e-mail), which is what following the mailed link proves. The newest pending invitation of the
 * address in that organisation is accepted as a claim would; a person without an account gets one
 * (no password: they sign in through the provider, or set one with a password reset). Null when
 * the address has no pending invitation there.
 */
export async function acceptInviteForVerifiedEmail(
  db: Database,
  input: { tenantId: string; email: string; displayName: string },
  meta: RequestMeta,
  now: Date,
): Promise<{ userId: string; created: boolean; roleKey: RoleKey } | null> {
  const address = input.email.trim().toLowerCase()
  const [found] = await withTenant(db, input.tenantId, (tx) =>
    tx
      .select()
      .from(invites)
      .where(and(eq(invites.tenantId, input.tenantId), sql`lower(${invites.email}) = ${address}`, isNull(invites.acceptedAt), isNull(invites.cancelledAt), gt(invites.expiresAt, now)))
      .orderBy(desc(invites.createdAt))
      .limit(1),
  )
  if (!found) return null
  const existing = await userByEmail(db, found.email)
  if (existing) {
    const isDefault = !(await hasAnyMembership(db, existing.id))
    const result = await acceptInvite(db, found, existing.id, { isDefault, registered: false }, meta, now)
    return { userId: existing.id, created: false, roleKey: result.roleKey }
  }
  const [user] = await db
    .insert(users)
    .values({ email: found.email, displayName: input.displayName.trim() || found.email, passwordHash: null, emailVerifiedAt: now, createdAt: now, updatedAt: now })
    .onConflictDoNothing()
    .returning({ id: users.id })
  if (!user) return acceptInviteForVerifiedEmail(db, input, meta, now)
  try {
    const result = await acceptInvite(db, found, user.id, { isDefault: true, registered: true }, meta, now)
    return { userId: user.id, created: true, roleKey: result.roleKey }
  } catch (error) {
    // The invite was used or cancelled meanwhile: no account without its organisation.
    await db.delete(users).where(eq(users.id, user.id))
    throw error
  }
}

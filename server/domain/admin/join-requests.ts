import { and, desc, eq, lt, or, sql } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import type { Database } from '#server/db/client'
import { memberships, tenants, users } from '#server/db/schema'
import { joinRequests } from '#server/db/schema-admin'
import { withTenant } from '#server/db/tenancy'
import { recordAuditIn } from '#server/domain/audit'
import { ClockedRateLimiter, type LimitRule } from '#server/domain/auth/rate-limiter'
import type { RoleKey } from '#server/domain/tenancy/roles'
import { ensureFreeSeat } from '#server/domain/licensing/seats'
import { enqueueMail } from '#server/domain/mail'
import type { DomainContext } from '#server/domain/tenancy/context'
import { recordChange } from '#server/domain/tenancy/change-log'
import { decodeCursor, pageOf } from '#server/domain/tenancy/paging'
import { Problem, problems } from '#server/http/problem'
import type { AdminJoinRequest, JoinRequestStatus, OwnJoinRequest } from '~/lib/admin/join-requests'

/**
 * Join requests (issue 13, docs/admin/join-requests-and-devices.md): a signed-in person asks to
 * join an organisation by its slug; its administrators approve with a role or decline with a
 * reason; the requester is told by mail. The requester is no member of that organisation, so the
 * organisation is found in the global tenants table and the request written inside its tenant
 * transaction; the requester's own list is read by user id across organisations.
 */

export const JOIN_REQUEST_STATUSES = ['pending', 'approved', 'declined', 'withdrawn'] as const

/** The JSON shapes are shared with the screens (app/lib/admin/join-requests.ts). */
export type { AdminJoinRequest, JoinRequestStatus, OwnJoinRequest } from '~/lib/admin/join-requests'

/** Where the request came from: audit and mail links. */
export type RequestMeta = { ip: string; correlationId: string; publicUrl: string }

/**
 * Asking is limited per account (not per address: a signed-in person is known): 10 an hour is
 * plenty for a person who mistypes a slug, and stops a script probing which slugs exist.
 */
export const JOIN_REQUEST_LIMIT = { prefix: 'join-request', points: 10, windowSeconds: 60 * 60 } as const satisfies LimitRule

const limiters = new WeakMap<Database, ClockedRateLimiter>()
function limiterFor(db: Database): ClockedRateLimiter {
  let limiter = limiters.get(db)
  if (!limiter) {
    limiter = new ClockedRateLimiter(db, JOIN_REQUEST_LIMIT)
    limiters.set(db, limiter)
  }
  return limiter
}

function tooMany(seconds: number): Problem {
  const minutes = Math.max(1, Math.ceil(seconds / 60))
  return new Problem({
    status: 429,
    title: 'Too many requests',
    detail: `You have asked to join organisations too often. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    code: 'KR_THROTTLED',
    retryAfterSeconds: seconds,
  })
}

function noSuchOrganisation(): Problem {
  const message = 'There is no organisation with this address. Check it with the person who gave it to you.'
  return new Problem({ ...problems.notFound(message), errors: { slug: [message] } })
}

function alreadyMember(name: string): Problem {
  return new Problem({ status: 409, title: 'Conflict', detail: `You are already a member of ${name}.`, code: 'KR_ALREADY_MEMBER' })
}

function alreadyPending(name: string): Problem {
  return new Problem({
    status: 409,
    title: 'Conflict',
    detail: `You have already asked to join ${name}. Its administrators have not answered yet.`,
    code: 'KR_JOIN_REQUEST_PENDING',
  })
}

function alreadyDecided(status: string): Problem {
  return new Problem({
    status: 409,
    title: 'Conflict',
    detail: status === 'withdrawn' ? 'The person withdrew this request.' : `This request was already ${status}.`,
    code: 'KR_JOIN_REQUEST_DECIDED',
    extensions: { requestStatus: status },
  })
}

/** A tenant context for a person who is not (yet) a member: recordChange reads only the tenant and the user. */
function contextOf(tx: DomainContext['tx'], tenantId: string, userId: string, now: Date): DomainContext {
  return { tx, actor: { tenantId, userId, roleKey: 'read-only' }, now }
}

export function normaliseSlug(slug: string): string {
  return slug
    .trim()
    .toLowerCase()
    .replace(/^\/+|\/+$/g, '')
}

/** POST /api/join-requests: ask to join the organisation with this slug. */
export async function createJoinRequest(
  db: Database,
  requester: { userId: string },
  input: { slug: string; message?: string | undefined },
  meta: RequestMeta,
  now: Date,
): Promise<OwnJoinRequest> {
  const { wait } = await limiterFor(db).hit(`user:${requester.userId}`, { now })
  if (wait > 0) throw tooMany(wait)

  const slug = normaliseSlug(input.slug)
  const [tenant] = await db
    .select({ id: tenants.id, name: tenants.name, slug: tenants.slug })
    .from(tenants)
    .where(sql`lower(${tenants.slug}) = ${slug}`)
    .limit(1)
  if (!tenant) throw noSuchOrganisation()
  const message = input.message?.trim() ? input.message.trim() : null

  return withTenant(db, tenant.id, async (tx) => {
    const ctx = contextOf(tx, tenant.id, requester.userId, now)
    const [membership] = await tx
      .select({ status: memberships.status })
      .from(memberships)
      .where(and(eq(memberships.tenantId, tenant.id), eq(memberships.userId, requester.userId)))
      .limit(1)
    if (membership?.status === 'active') throw alreadyMember(tenant.name)
    const [row] = await tx
      .insert(joinRequests)
      .values({ tenantId: tenant.id, userId: requester.userId, message, status: 'pending', createdAt: now, updatedAt: now })
      .onConflictDoNothing()
      .returning({ id: joinRequests.id, createdAt: joinRequests.createdAt })
    if (!row) throw alreadyPending(tenant.name)

    const [person] = await tx.select({ displayName: users.displayName, email: users.email }).from(users).where(eq(users.id, requester.userId))
    await recordChange(ctx, 'JoinRequest', row.id, 'Created')
    await recordAuditIn(tx, {
      tenantId: tenant.id,
      actorUserId: requester.userId,
      action: 'admin.join-request.created',
      targetType: 'JoinRequest',
      targetId: row.id,
      ip: meta.ip,
      correlationId: meta.correlationId,
      data: { hasMessage: message !== null },
      at: now,
    })
    const admins = await tx
      .select({ email: users.email })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.tenantId, tenant.id), eq(memberships.roleKey, 'admin'), eq(memberships.status, 'active'), eq(users.status, 'active')))
    for (const admin of admins) {
      await enqueueMail(tx, {
        tenantId: tenant.id,
        to: admin.email,
        template: 'join-request-received',
        variables: {
          publicUrl: meta.publicUrl,
          organisationName: tenant.name,
          requesterName: person?.displayName ?? 'Someone',
          requesterEmail: person?.email ?? '',
          message,
          reviewUrl: `${meta.publicUrl}/admin/join-requests`,
        },
      })
    }
    return {
      id: row.id,
      organisationName: tenant.name,
      organisationSlug: tenant.slug,
      status: 'pending',
      declineReason: null,
      createdAt: row.createdAt.toISOString(),
      decidedAt: null,
    }
  })
}

/**
 * GET /api/join-requests/mine: the caller's requests in every organisation, newest first. Read by
 * user id with the owner connection (the caller is no member of those tenants), with only the
 * fields that are the requester's business.
 */
export async function listOwnJoinRequests(db: Database, userId: string): Promise<OwnJoinRequest[]> {
  const rows = await db
    .select({
      id: joinRequests.id,
      organisationName: tenants.name,
      organisationSlug: tenants.slug,
      status: joinRequests.status,
      declineReason: joinRequests.declineReason,
      createdAt: joinRequests.createdAt,
      decidedAt: joinRequests.decidedAt,
    })
    .from(joinRequests)
    .innerJoin(tenants, eq(tenants.id, joinRequests.tenantId))
    .where(eq(joinRequests.userId, userId))
    .orderBy(desc(joinRequests.createdAt), desc(joinRequests.id))
    .limit(100)
  return rows.map((r) => ({
    id: r.id,
    organisationName: r.organisationName,
    organisationSlug: r.organisationSlug,
    status: r.status as JoinRequestStatus,
    declineReason: r.declineReason,
    createdAt: r.createdAt.toISOString(),
    decidedAt: r.decidedAt?.toISOString() ?? null,
  }))
}

/** POST /api/join-requests/{id}/withdraw: the requester takes back a pending request. */
export async function withdrawJoinRequest(db: Database, userId: string, id: string, meta: RequestMeta, now: Date): Promise<OwnJoinRequest> {
  const [found] = await db
    .select({ tenantId: joinRequests.tenantId })
    .from(joinRequests)
    .where(and(eq(joinRequests.id, id), eq(joinRequests.userId, userId)))
    .limit(1)
  if (!found) throw new Problem(problems.notFound())
  await withTenant(db, found.tenantId, async (tx) => {
    const [row] = await tx
      .select({ status: joinRequests.status })
      .from(joinRequests)
      .where(and(eq(joinRequests.tenantId, found.tenantId), eq(joinRequests.id, id), eq(joinRequests.userId, userId)))
      .for('update')
    if (!row) throw new Problem(problems.notFound())
    if (row.status !== 'pending') throw alreadyDecided(row.status)
    await tx
      .update(joinRequests)
      .set({ status: 'withdrawn', decidedAt: now, updatedAt: now })
      .where(and(eq(joinRequests.tenantId, found.tenantId), eq(joinRequests.id, id)))
    await recordChange(contextOf(tx, found.tenantId, userId, now), 'JoinRequest', id, 'Updated')
    await recordAuditIn(tx, {
      tenantId: found.tenantId,
      actorUserId: userId,
      action: 'admin.join-request.withdrawn',
      targetType: 'JoinRequest',
      targetId: id,
      ip: meta.ip,
      correlationId: meta.correlationId,
      at: now,
    })
  })
  const mine = await listOwnJoinRequests(db, userId)
  const request = mine.find((r) => r.id === id)
  if (!request) throw new Problem(problems.notFound())
  return request
}

// ---- The administrators' side ----

export type AdminJoinRequestFilter = { status: JoinRequestStatus | 'all'; after?: string | undefined; limit: number }

const decider = alias(users, 'decider')

const adminColumns = {
  id: joinRequests.id,
  userId: joinRequests.userId,
  displayName: users.displayName,
  email: users.email,
  message: joinRequests.message,
  status: joinRequests.status,
  roleKey: joinRequests.roleKey,
  declineReason: joinRequests.declineReason,
  decidedById: joinRequests.decidedBy,
  decidedByName: decider.displayName,
  createdAt: joinRequests.createdAt,
  decidedAt: joinRequests.decidedAt,
}

type AdminRow = {
  id: string
  userId: string
  displayName: string
  email: string
  message: string | null
  status: string
  roleKey: string | null
  declineReason: string | null
  decidedById: string | null
  decidedByName: string | null
  createdAt: Date
  decidedAt: Date | null
}

function adminView(r: AdminRow): AdminJoinRequest {
  return {
    id: r.id,
    requester: { id: r.userId, displayName: r.displayName, email: r.email },
    message: r.message,
    status: r.status as JoinRequestStatus,
    roleKey: r.roleKey as RoleKey | null,
    declineReason: r.declineReason,
    decidedBy: r.decidedById ? { id: r.decidedById, displayName: r.decidedByName ?? '' } : null,
    createdAtUtc: r.createdAt.toISOString(),
    decidedAtUtc: r.decidedAt?.toISOString() ?? null,
  }
}

function selectAdmin(ctx: DomainContext) {
  return ctx.tx.select(adminColumns).from(joinRequests).innerJoin(users, eq(users.id, joinRequests.userId)).leftJoin(decider, eq(decider.id, joinRequests.decidedBy))
}

/** GET /api/admin/join-requests: newest first, pending ones by default. */
export async function listJoinRequests(ctx: DomainContext, filter: AdminJoinRequestFilter): Promise<{ items: AdminJoinRequest[]; nextCursor: string | null }> {
  const cursor = decodeCursor(filter.after)
  const rows = await selectAdmin(ctx)
    .where(
      and(
        eq(joinRequests.tenantId, ctx.actor.tenantId),
        filter.status === 'all' ? undefined : eq(joinRequests.status, filter.status),
        cursor ? or(lt(joinRequests.createdAt, cursor.createdAt), and(eq(joinRequests.createdAt, cursor.createdAt), lt(joinRequests.id, cursor.id))) : undefined,
      ),
    )
    .orderBy(desc(joinRequests.createdAt), desc(joinRequests.id))
    .limit(filter.limit + 1)
  const page = pageOf(rows, filter.limit)
  return { items: page.rows.map(adminView), nextCursor: page.nextCursor }
}

async function lockedRequest(ctx: DomainContext, id: string) {
  const [row] = await ctx.tx
    .select({ id: joinRequests.id, userId: joinRequests.userId, status: joinRequests.status })
    .from(joinRequests)
    .where(and(eq(joinRequests.tenantId, ctx.actor.tenantId), eq(joinRequests.id, id)))
    .for('update')
  if (!row) throw new Problem(problems.notFound('There is no such join request in this organisation.'))
  if (row.status !== 'pending') throw alreadyDecided(row.status)
  return row
}

async function getAdminView(ctx: DomainContext, id: string): Promise<AdminJoinRequest> {
  const [row] = await selectAdmin(ctx).where(and(eq(joinRequests.tenantId, ctx.actor.tenantId), eq(joinRequests.id, id)))
  if (!row) throw new Problem(problems.notFound())
  return adminView(row)
}

async function organisationName(ctx: DomainContext): Promise<string> {
  const [tenant] = await ctx.tx.select({ name: tenants.name }).from(tenants).where(eq(tenants.id, ctx.actor.tenantId))
  return tenant?.name ?? 'the organisation'
}

const ROLE_LABELS: Record<RoleKey, string> = { admin: 'Administrator', 'read-write': 'Read & Write', 'read-only': 'Read Only' }

/**
 * POST /api/admin/join-requests/{id}/approve: the person becomes a member with the role (a
 * suspended or invited membership is reactivated with it; an active one, made meanwhile through
 * an invite, is left as it is).
 */
export async function approveJoinRequest(ctx: DomainContext, id: string, input: { roleKey: RoleKey }, meta: RequestMeta): Promise<AdminJoinRequest> {
  const request = await lockedRequest(ctx, id)
  const tenantId = ctx.actor.tenantId
  const [existing] = await ctx.tx
    .select({ id: memberships.id, status: memberships.status, roleKey: memberships.roleKey })
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, request.userId)))
    .for('update')
  let membershipId: string
  let membershipChange: 'created' | 'reactivated' | 'unchanged'
  // A new or reactivated member takes a seat (docs/licensing.md "Seats").
  if (existing?.status !== 'active') await ensureFreeSeat(ctx)
  if (!existing) {
    const [created] = await ctx.tx
      .insert(memberships)
      .values({ tenantId, userId: request.userId, roleKey: input.roleKey, status: 'active', isDefault: false, createdAt: ctx.now, updatedAt: ctx.now })
      .returning({ id: memberships.id })
    if (!created) throw new Error('membership not created')
    membershipId = created.id
    membershipChange = 'created'
    await recordChange(ctx, 'Membership', membershipId, 'Created')
  } else if (existing.status !== 'active') {
    await ctx.tx
      .update(memberships)
      .set({ status: 'active', roleKey: input.roleKey, updatedAt: ctx.now })
      .where(and(eq(memberships.tenantId, tenantId), eq(memberships.id, existing.id)))
    membershipId = existing.id
    membershipChange = 'reactivated'
    await recordChange(ctx, 'Membership', membershipId, 'Updated')
  } else {
    membershipId = existing.id
    membershipChange = 'unchanged'
  }
  const roleKey = membershipChange === 'unchanged' ? (existing?.roleKey as RoleKey) : input.roleKey
  await ctx.tx
    .update(joinRequests)
    .set({ status: 'approved', roleKey, decidedBy: ctx.actor.userId, decidedAt: ctx.now, updatedAt: ctx.now })
    .where(and(eq(joinRequests.tenantId, tenantId), eq(joinRequests.id, id)))
  await recordChange(ctx, 'JoinRequest', id, 'Updated')
  await recordAuditIn(ctx.tx, {
    tenantId,
    actorUserId: ctx.actor.userId,
    action: 'admin.join-request.approved',
    targetType: 'JoinRequest',
    targetId: id,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data: { userId: request.userId, roleKey, membershipId, membership: membershipChange },
    at: ctx.now,
  })
  const view = await getAdminView(ctx, id)
  const name = await organisationName(ctx)
  await enqueueMail(ctx.tx, {
    tenantId,
    to: view.requester.email,
    template: 'join-request-decided',
    variables: {
      publicUrl: meta.publicUrl,
      organisationName: name,
      approved: true,
      roleName: ROLE_LABELS[roleKey],
      reason: null,
      loginUrl: `${meta.publicUrl}/auth/login`,
      requestsUrl: `${meta.publicUrl}/join`,
    },
  })
  return view
}

/** POST /api/admin/join-requests/{id}/decline: declined with a reason the requester reads. */
export async function declineJoinRequest(ctx: DomainContext, id: string, input: { reason: string }, meta: RequestMeta): Promise<AdminJoinRequest> {
  const request = await lockedRequest(ctx, id)
  const tenantId = ctx.actor.tenantId
  const reason = input.reason.trim()
  await ctx.tx
    .update(joinRequests)
    .set({ status: 'declined', declineReason: reason, decidedBy: ctx.actor.userId, decidedAt: ctx.now, updatedAt: ctx.now })
    .where(and(eq(joinRequests.tenantId, tenantId), eq(joinRequests.id, id)))
  await recordChange(ctx, 'JoinRequest', id, 'Updated')
  await recordAuditIn(ctx.tx, {
    tenantId,
    actorUserId: ctx.actor.userId,
    action: 'admin.join-request.declined',
    targetType: 'JoinRequest',
    targetId: id,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data: { userId: request.userId },
    at: ctx.now,
  })
  const view = await getAdminView(ctx, id)
  const name = await organisationName(ctx)
  await enqueueMail(ctx.tx, {
    tenantId,
    to: view.requester.email,
    template: 'join-request-decided',
    variables: {
      publicUrl: meta.publicUrl,
      organisationName: name,
      approved: false,
      roleName: null,
      reason,
      loginUrl: `${meta.publicUrl}/auth/login`,
      requestsUrl: `${meta.publicUrl}/join`,
    },
  })
  return view
}

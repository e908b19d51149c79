import { and, asc, count, eq, inArray, isNull, ne, or, sql } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { authTokens, devices, memberships, mfaSecrets, sessions, tenants, users } from '#server/db/schema'
import { recordAuditIn, type AuditAction } from '#server/domain/audit'
import { hashPassword } from '#server/domain/auth/passwords'
import { ensurePasswordPolicyIn } from '#server/domain/config/password-policy'
import { newToken } from '#server/domain/auth/tokens'
import { enqueueMail } from '#server/domain/mail'
import type { DomainContext } from '#server/domain/tenancy/context'
import { recordChange } from '#server/domain/tenancy/change-log'
import { refuseStaleWrite } from '#server/domain/tenancy/edit-conflict'
import { isUuid } from '~/lib/schemas/uuid'
import { ensureFreeSeat } from '#server/domain/licensing/seats'
import { Problem, problems } from '#server/http/problem'
import {
  ADMIN_ROLE_KEYS,
  type AdminMembership,
  type AdminOrganisation,
  type AdminRole,
  type AdminRoleKey,
  type AdminUser,
  type AdminUserStatus,
  type HardDeleteResult,
  type MembershipStatus,
  ROLE_NAMES,
} from '~/lib/admin/users'
import type { AddMemberInput, UserPatch, UsersQuery } from '~/lib/schemas/admin-users'
import { decodeOpaque, encodeOpaque } from '#server/http/opaque'

/**
 * Administration › Users (docs/admin/users.md; spec §3 "Admin user", §7 "Admin users and devices").
 * Everything runs in the administrator's tenant transaction (asAdmin): a person is visible here
 * only through their membership of this organisation, so another organisation's people answer 404.
 * Names, position and MFA enforcement belong to the person (every organisation sees them); role
 * and status belong to this organisation's membership.
 */

/** Where a change came from, for the audit trail. */
export type RequestMeta = { ip?: string | undefined; correlationId?: string | undefined }

const RESET_TTL_MS = 60 * 60_000

const STATUS_OF_MEMBERSHIP: Record<string, MembershipStatus> = { active: 'Active', suspended: 'Suspended', invited: 'Invited' }
const MEMBERSHIP_OF_STATUS: Record<MembershipStatus, string> = { Active: 'active', Suspended: 'suspended', Invited: 'invited' }

function membershipStatus(status: string): MembershipStatus {
  return STATUS_OF_MEMBERSHIP[status] ?? 'Suspended'
}

function personStatus(userStatus: string, membership: string): AdminUserStatus {
  if (userStatus === 'deleted') return 'Deleted'
  if (userStatus === 'blocked') return 'Blocked'
  return membershipStatus(membership)
}

/** The sign-in that lands in that organisation (the login form reads `tenantSlug`). */
export function namespacedUrl(slug: string): string {
  return `/auth/login?tenantSlug=${encodeURIComponent(slug)}`
}

// ---- Problems ----

const notFound = () => new Problem(problems.notFound())

const lastAdmin = () =>
  new Problem({
    status: 409,
    title: 'Conflict',
    detail: 'This is the last active administrator of the organisation: it needs at least one.',
    code: 'KR_LAST_ADMIN',
    remediation: 'Make another member an administrator first.',
  })

const notYourself = (detail: string) => new Problem({ status: 409, title: 'Conflict', detail, code: 'KR_SELF_CHANGE', remediation: 'Ask another administrator to do it.' })

const accountNotActive = () => new Problem({ status: 409, title: 'Conflict', detail: 'This account is blocked or deleted: it cannot sign in.', code: 'KR_ACCOUNT_INACTIVE' })

// ---- Reading ----

const userColumns = {
  id: users.id,
  email: users.email,
  displayName: users.displayName,
  firstName: users.firstName,
  lastName: users.lastName,
  position: users.position,
  userStatus: users.status,
  mfaEnforced: users.mfaEnforced,
  revision: users.revision,
  updatedBy: users.updatedBy,
  createdAt: users.createdAt,
  updatedAt: users.updatedAt,
  membershipId: memberships.id,
  roleKey: memberships.roleKey,
  membershipStatus: memberships.status,
  isDefault: memberships.isDefault,
}

type MemberRow = {
  id: string
  email: string
  displayName: string
  firstName: string | null
  lastName: string | null
  position: string | null
  userStatus: string
  mfaEnforced: boolean
  revision: number
  updatedBy: string | null
  createdAt: Date
  updatedAt: Date
  membershipId: string
  roleKey: string
  membershipStatus: string
  isDefault: boolean
}

type Organisation = { id: string; name: string; slug: string }

async function currentOrganisation(ctx: DomainContext): Promise<Organisation> {
  const [row] = await ctx.tx.select({ id: tenants.id, name: tenants.name, slug: tenants.slug }).from(tenants).where(eq(tenants.id, ctx.actor.tenantId)).limit(1)
  if (!row) throw new Error('the session tenant does not exist')
  return row
}

function membershipView(org: Organisation, row: { roleKey: string; status: string; isDefault: boolean }): AdminMembership {
  return {
    organisationId: org.id,
    organisationName: org.name,
    organisationSlug: org.slug,
    roleKey: row.roleKey as AdminRoleKey,
    statusDisplayName: membershipStatus(row.status),
    isDefault: row.isDefault,
    namespacedUrl: namespacedUrl(org.slug),
  }
}

function userView(row: MemberRow, memberships: AdminMembership[]): AdminUser {
  return {
    id: row.id,
    displayName: row.displayName,
    firstName: row.firstName,
    lastName: row.lastName,
    position: row.position,
    email: row.email,
    status: personStatus(row.userStatus, row.membershipStatus),
    isMfaEnforced: row.mfaEnforced,
    revision: row.revision,
    createdAtUtc: row.createdAt.toISOString(),
    updatedAtUtc: row.updatedAt.toISOString(),
    memberships,
  }
}

async function findMember(ctx: DomainContext, userId: string, options: { lock?: boolean } = {}): Promise<MemberRow> {
  if (!isUuid(userId)) throw notFound()
  const query = ctx.tx
    .select(userColumns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.tenantId, ctx.actor.tenantId), eq(memberships.userId, userId)))
    .limit(1)
  const [row] = options.lock ? await query.for('update', { of: memberships }) : await query
  if (!row) throw notFound()
  return row
}

/**
 * Runs `work` seeing the memberships of `userId` in every organisation (the memberships_own_rows
 * policy, as signing in does), then goes back to seeing this organisation's only.
 */
async function asUserOwnRows<T>(ctx: DomainContext, userId: string, work: () => Promise<T>): Promise<T> {
  await ctx.tx.execute(sql`select set_config('app.user_id', ${userId}, true)`)
  const result = await work()
  await ctx.tx.execute(sql`select set_config('app.user_id', '', true)`)
  return result
}

/** The organisations the calling administrator administers (an active admin membership). */
async function administeredTenantIds(ctx: DomainContext): Promise<string[]> {
  const rows = await asUserOwnRows(ctx, ctx.actor.userId, () =>
    ctx.tx
      .select({ tenantId: memberships.tenantId })
      .from(memberships)
      .where(and(eq(memberships.userId, ctx.actor.userId), eq(memberships.roleKey, 'admin'), eq(memberships.status, 'active'))),
  )
  return rows.map((r) => r.tenantId)
}

/** The person's memberships of any organisation (for the detail and for a hard delete). */
async function allMembershipsOf(ctx: DomainContext, userId: string) {
  return asUserOwnRows(ctx, userId, () =>
    ctx.tx
      .select({
        tenantId: memberships.tenantId,
        roleKey: memberships.roleKey,
        status: memberships.status,
        isDefault: memberships.isDefault,
        name: tenants.name,
        slug: tenants.slug,
      })
      .from(memberships)
      .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
      .where(eq(memberships.userId, userId))
      .orderBy(asc(tenants.name), asc(tenants.id)),
  )
}

/**
 * The detail's memberships: this organisation's first, then the person's others, but only those
 * of organisations the caller administers too (privacy: an administrator learns nothing about
 * organisations they do not run).
 */
async function detailMemberships(ctx: DomainContext, userId: string): Promise<AdminMembership[]> {
  const all = await allMembershipsOf(ctx, userId)
  const administered = new Set(await administeredTenantIds(ctx))
  const visible = all.filter((m) => m.tenantId === ctx.actor.tenantId || administered.has(m.tenantId))
  visible.sort((a, b) => Number(b.tenantId === ctx.actor.tenantId) - Number(a.tenantId === ctx.actor.tenantId))
  return visible.map((m) => membershipView({ id: m.tenantId, name: m.name, slug: m.slug }, m))
}

async function detail(ctx: DomainContext, userId: string): Promise<AdminUser> {
  const row = await findMember(ctx, userId)
  return userView(row, await detailMemberships(ctx, userId))
}

// ---- Paging ----

type UserCursor = { n: string; id: string }

function encodeUserCursor(row: { displayName: string; id: string }): string {
  return encodeOpaque({ n: row.displayName.toLowerCase(), id: row.id })
}

function decodeUserCursor(value: string | undefined): UserCursor | undefined {
  if (value === undefined) return undefined
  try {
    const parsed = decodeOpaque(value) as unknown
    if (parsed && typeof parsed === 'object' && 'n' in parsed && 'id' in parsed && typeof parsed.n === 'string' && typeof parsed.id === 'string' && isUuid(parsed.id)) {
      return { n: parsed.n, id: parsed.id }
    }
  } catch {
    // falls through
  }
  throw new Problem(problems.badRequest('The paging cursor is not valid.', { after: ['The paging cursor is not valid. Start again from the first page.'] }))
}

/** A search term as a LIKE pattern that matches it literally (its % and _ are not wildcards). */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`
}

/**
 * GET /api/admin/users: this organisation's members by display name (then id), 50 a page. The
 * organisationId filter may only name this organisation (another's answers 404); status filters on
 * the membership's; q searches names and e-mail, case-insensitively and literally.
 */
export async function listUsers(ctx: DomainContext, query: UsersQuery): Promise<{ items: AdminUser[]; nextCursor: string | null }> {
  if (query.organisationId !== undefined && query.organisationId !== ctx.actor.tenantId) throw notFound()
  const cursor = decodeUserCursor(query.after)
  const org = await currentOrganisation(ctx)
  const pattern = query.q ? containsPattern(query.q) : undefined
  const nameKey = sql`lower(${users.displayName})`
  const rows = await ctx.tx
    .select(userColumns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(
      and(
        eq(memberships.tenantId, ctx.actor.tenantId),
        query.roleKey ? eq(memberships.roleKey, query.roleKey) : undefined,
        query.status ? eq(memberships.status, MEMBERSHIP_OF_STATUS[query.status]) : undefined,
        pattern
          ? or(
              sql`${users.displayName} ilike ${pattern}`,
              sql`${users.email} ilike ${pattern}`,
              sql`coalesce(${users.firstName}, '') || ' ' || coalesce(${users.lastName}, '') ilike ${pattern}`,
            )
          : undefined,
        cursor ? sql`(${nameKey}, ${users.id}) > (${cursor.n}, ${cursor.id}::uuid)` : undefined,
      ),
    )
    .orderBy(nameKey, asc(users.id))
    .limit(query.limit + 1)
  const page = rows.slice(0, query.limit)
  const last = page[page.length - 1]
  return {
    items: page.map((row) => userView(row, [membershipView(org, { roleKey: row.roleKey, status: row.membershipStatus, isDefault: row.isDefault })])),
    nextCursor: rows.length > query.limit && last ? encodeUserCursor(last) : null,
  }
}

/** GET /api/admin/users/{id}. */
export function getUser(ctx: DomainContext, userId: string): Promise<AdminUser> {
  return detail(ctx, userId)
}

// ---- Changing ----

/** Membership changes of one organisation run one at a time, so two cannot each remove "the other" last admin. */
async function lockMembers(ctx: DomainContext): Promise<void> {
  await ctx.tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`admin-members:${ctx.actor.tenantId}`}, 0))`)
}

/** Refuses a change that leaves the organisation without an active administrator. */
async function keepAnAdmin(ctx: DomainContext, row: MemberRow, after: { roleKey: string; status: string } | 'removed'): Promise<void> {
  const isActiveAdmin = row.roleKey === 'admin' && row.membershipStatus === 'active'
  const staysActiveAdmin = after !== 'removed' && after.roleKey === 'admin' && after.status === 'active'
  if (!isActiveAdmin || staysActiveAdmin) return
  const [others] = await ctx.tx
    .select({ n: count() })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(
      and(
        eq(memberships.tenantId, ctx.actor.tenantId),
        eq(memberships.roleKey, 'admin'),
        eq(memberships.status, 'active'),
        eq(users.status, 'active'),
        ne(memberships.userId, row.id),
      ),
    )
  if ((others?.n ?? 0) === 0) throw lastAdmin()
}

async function audit(ctx: DomainContext, meta: RequestMeta, action: AuditAction, targetId: string, data?: Record<string, unknown>): Promise<void> {
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action,
    targetType: 'User',
    targetId,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data,
    at: ctx.now,
  })
}

/** Ends the person's sessions in this organisation (a suspended member is signed out here, not elsewhere). */
async function revokeSessionsHere(ctx: DomainContext, userId: string): Promise<void> {
  await ctx.tx
    .update(sessions)
    .set({ revokedAt: ctx.now })
    .where(and(eq(sessions.userId, userId), eq(sessions.tenantId, ctx.actor.tenantId), isNull(sessions.revokedAt)))
}

async function setMembership(ctx: DomainContext, userId: string, values: { roleKey?: string; status?: string }): Promise<void> {
  await ctx.tx
    .update(memberships)
    .set({ ...values, updatedAt: ctx.now })
    .where(and(eq(memberships.tenantId, ctx.actor.tenantId), eq(memberships.userId, userId)))
}

/**
 * PATCH /api/admin/users/{id}. Names, position and MFA enforcement are the person's (global);
 * role and status are this organisation's membership. Suspending ends the person's sessions in
 * this organisation. The last active administrator keeps their role and status; an administrator
 * cannot suspend themselves.
 */
/**
 * The person's revision moves with every change of them, whoever makes it (an administrator here
 * or of another of their organisations, or they themselves in their settings): a later save against
 * an older revision is refused (issue 36 §4).
 */
export async function bumpPersonRevision(tx: DomainContext['tx'], userId: string, by: string, at: Date): Promise<void> {
  await tx
    .update(users)
    .set({ revision: sql`${users.revision} + 1`, updatedBy: by, updatedAt: at })
    .where(eq(users.id, userId))
}

/**
 * A stale save is refused naming who saved last, but only when they are a member here or the
 * person themselves: an administrator of another of the person's organisations stays unnamed.
 */
async function refuseStalePerson(ctx: DomainContext, row: MemberRow, expectedRevision: number | undefined): Promise<void> {
  if (expectedRevision === undefined || expectedRevision === row.revision) return
  const named =
    row.updatedBy === null || row.updatedBy === row.id
      ? row.updatedBy
      : ((await ctx.tx.select({ id: memberships.userId }).from(memberships).where(and(eq(memberships.tenantId, ctx.actor.tenantId), eq(memberships.userId, row.updatedBy))).limit(1))[0]?.id ?? null)
  await refuseStaleWrite(ctx, { revision: row.revision, updatedBy: named, what: 'person' }, expectedRevision, () => detail(ctx, row.id))
}

export async function updateUser(ctx: DomainContext, userId: string, patch: UserPatch, meta: RequestMeta): Promise<AdminUser> {
  await lockMembers(ctx)
  const row = await findMember(ctx, userId, { lock: true })
  if (row.userStatus === 'deleted') throw notFound()
  await refuseStalePerson(ctx, row, patch.expectedRevision)

  const person: { firstName?: string | null; lastName?: string | null; displayName?: string; position?: string | null; mfaEnforced?: boolean } = {}
  if (patch.firstName !== undefined && patch.firstName !== row.firstName) person.firstName = patch.firstName
  if (patch.lastName !== undefined && patch.lastName !== row.lastName) person.lastName = patch.lastName
  if (patch.displayName !== undefined && patch.displayName !== row.displayName) person.displayName = patch.displayName
  if (patch.position !== undefined && patch.position !== row.position) person.position = patch.position
  if (patch.isMfaEnforced !== undefined && patch.isMfaEnforced !== row.mfaEnforced) person.mfaEnforced = patch.isMfaEnforced

  const nextRole = patch.roleKey ?? row.roleKey
  const nextStatus = patch.status ? MEMBERSHIP_OF_STATUS[patch.status] : row.membershipStatus
  const roleChanged = nextRole !== row.roleKey
  const statusChanged = nextStatus !== row.membershipStatus
  if (statusChanged && nextStatus === 'suspended' && userId === ctx.actor.userId) throw notYourself('You cannot suspend yourself.')
  if (roleChanged || statusChanged) await keepAnAdmin(ctx, row, { roleKey: nextRole, status: nextStatus })
  // Reactivating takes a seat again (docs/licensing.md "Seats").
  if (statusChanged && nextStatus === 'active') await ensureFreeSeat(ctx)

  if (Object.keys(person).length > 0) {
    await ctx.tx
      .update(users)
      .set({ ...person, updatedAt: ctx.now })
      .where(eq(users.id, userId))
    await audit(ctx, meta, 'admin.user.changed', userId, { fields: Object.keys(person) })
    await recordChange(ctx, 'User', userId, 'Updated')
  }
  if (roleChanged || statusChanged) {
    await setMembership(ctx, userId, { roleKey: nextRole, status: nextStatus })
    if (roleChanged) await audit(ctx, meta, 'admin.member.role.changed', userId, { from: row.roleKey, to: nextRole })
    if (statusChanged) {
      if (nextStatus === 'suspended') await revokeSessionsHere(ctx, userId)
      await audit(ctx, meta, nextStatus === 'active' ? 'admin.user.reactivated' : 'admin.user.deactivated', userId, { from: row.membershipStatus, to: nextStatus })
    }
    await recordChange(ctx, 'Membership', userId, 'Updated')
  }
  if (Object.keys(person).length > 0 || roleChanged || statusChanged) await bumpPersonRevision(ctx.tx, userId, ctx.actor.userId, ctx.now)
  return detail(ctx, userId)
}

/**
 * DELETE /api/admin/users/{id}: deactivate (the membership is suspended, the person's sessions here
 * end). Revoking a seat (server/domain/licensing/seats.ts) is the same, audited `via` it.
 */
export async function deactivateUser(ctx: DomainContext, userId: string, meta: RequestMeta, via: 'delete' | 'seat-revoke' = 'delete'): Promise<AdminUser> {
  await lockMembers(ctx)
  const row = await findMember(ctx, userId, { lock: true })
  if (userId === ctx.actor.userId) throw notYourself('You cannot deactivate yourself.')
  if (row.membershipStatus !== 'suspended') {
    await keepAnAdmin(ctx, row, { roleKey: row.roleKey, status: 'suspended' })
    await setMembership(ctx, userId, { status: 'suspended' })
    await audit(ctx, meta, 'admin.user.deactivated', userId, { from: row.membershipStatus, to: 'suspended', via })
    await recordChange(ctx, 'Membership', userId, 'Updated')
    await bumpPersonRevision(ctx.tx, userId, ctx.actor.userId, ctx.now)
  }
  await revokeSessionsHere(ctx, userId)
  return detail(ctx, userId)
}

/**
 * DELETE /api/admin/users/{id}/hard: the person leaves this organisation (membership, devices and
 * sessions here). If they belong to no other organisation, their account becomes a tombstone:
 * "Deleted user", deleted-<id>@invalid, no password, no MFA, status deleted, every session and
 * mailed token gone; the row stays so that everything they made still points at it.
 */
export async function hardDeleteUser(ctx: DomainContext, userId: string, meta: RequestMeta): Promise<HardDeleteResult> {
  await lockMembers(ctx)
  const row = await findMember(ctx, userId, { lock: true })
  if (userId === ctx.actor.userId) throw notYourself('You cannot delete yourself.')
  await keepAnAdmin(ctx, row, 'removed')
  const others = (await allMembershipsOf(ctx, userId)).filter((m) => m.tenantId !== ctx.actor.tenantId)

  await ctx.tx.delete(memberships).where(and(eq(memberships.tenantId, ctx.actor.tenantId), eq(memberships.userId, userId)))
  const removedDevices = await ctx.tx
    .delete(devices)
    .where(and(eq(devices.tenantId, ctx.actor.tenantId), eq(devices.userId, userId)))
    .returning({ id: devices.id })
  await ctx.tx.delete(sessions).where(and(eq(sessions.userId, userId), eq(sessions.tenantId, ctx.actor.tenantId)))

  const outcome: HardDeleteResult['outcome'] = others.length === 0 ? 'anonymised' : 'removed-from-organisation'
  if (outcome === 'anonymised') {
    await ctx.tx
      .update(users)
      .set({
        displayName: 'Deleted user',
        firstName: null,
        lastName: null,
        position: null,
        email: `deleted-${userId}@invalid`,
        passwordHash: null,
        mfaEnforced: false,
        emailVerifiedAt: null,
        status: 'deleted',
        updatedAt: ctx.now,
      })
      .where(eq(users.id, userId))
    await ctx.tx.delete(mfaSecrets).where(eq(mfaSecrets.userId, userId))
    await ctx.tx.delete(sessions).where(eq(sessions.userId, userId))
    await ctx.tx.delete(authTokens).where(eq(authTokens.userId, userId))
  }
  await audit(ctx, meta, 'admin.user.deleted', userId, { outcome, roleKey: row.roleKey, devicesRemoved: removedDevices.length })
  await recordChange(ctx, 'Membership', userId, 'Deleted')
  if (outcome === 'anonymised') await recordChange(ctx, 'User', userId, 'Updated')
  return { id: userId, outcome }
}

/**
 * POST /api/admin/users/{id}/password: mails the person a link to choose a new password (the
 * password-reset flow of server/domain/auth/account.ts: the same token, page and lifetime).
 */
export async function sendPasswordReset(ctx: DomainContext, userId: string, meta: RequestMeta, publicUrl: string): Promise<AdminUser> {
  const row = await findMember(ctx, userId)
  if (row.userStatus !== 'active') throw accountNotActive()
  const { token, hash } = newToken()
  await ctx.tx.insert(authTokens).values({ tokenHash: hash, userId, purpose: 'reset-password', expiresAt: new Date(ctx.now.getTime() + RESET_TTL_MS) })
  const org = await currentOrganisation(ctx)
  await enqueueMail(ctx.tx as unknown as Database, {
    tenantId: ctx.actor.tenantId,
    to: row.email,
    template: 'admin-password-reset',
    variables: { publicUrl, organisationName: org.name, recipientName: row.displayName, resetUrl: `${publicUrl}/auth/forgot-password?token=${token}` },
  })
  await audit(ctx, meta, 'admin.user.password.reset', userId)
  return detail(ctx, userId)
}

/**
 * POST /api/admin/users/{id}/password/set: sets the password directly (the account rules and
 * hashing); the person's other sessions end everywhere and older reset links die.
 */
export async function setPassword(ctx: DomainContext, userId: string, password: string, meta: RequestMeta & { sessionId: string }): Promise<AdminUser> {
  const row = await findMember(ctx, userId, { lock: true })
  if (row.userStatus !== 'active') throw accountNotActive()
  await ensurePasswordPolicyIn(ctx.tx, ctx.actor.tenantId, password, 'password')
  const passwordHash = await hashPassword(password)
  await ctx.tx.update(users).set({ passwordHash, updatedAt: ctx.now }).where(eq(users.id, userId))
  await ctx.tx
    .update(authTokens)
    .set({ usedAt: ctx.now })
    .where(and(eq(authTokens.userId, userId), eq(authTokens.purpose, 'reset-password'), isNull(authTokens.usedAt)))
  await ctx.tx
    .update(sessions)
    .set({ revokedAt: ctx.now })
    .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), ne(sessions.id, meta.sessionId)))
  await audit(ctx, meta, 'admin.user.password.set', userId)
  await recordChange(ctx, 'User', userId, 'Updated')
  return detail(ctx, userId)
}

// ---- Roles, organisations, members ----

/** GET /api/admin/roles: spec §3 "Role keys". */
export function listRoles(): AdminRole[] {
  return ADMIN_ROLE_KEYS.map((key) => ({ key, name: ROLE_NAMES[key] }))
}

/** GET /api/admin/organisations: the organisations the caller administers, this one marked, with their active members. */
export async function listOrganisations(ctx: DomainContext): Promise<AdminOrganisation[]> {
  const ids = await administeredTenantIds(ctx)
  if (!ids.includes(ctx.actor.tenantId)) ids.push(ctx.actor.tenantId)
  const orgs = await ctx.tx
    .select({ id: tenants.id, name: tenants.name, slug: tenants.slug })
    .from(tenants)
    .where(inArray(tenants.id, ids))
    .orderBy(asc(tenants.name), asc(tenants.id))
  const result: AdminOrganisation[] = []
  for (const org of orgs) result.push({ ...org, memberCount: await activeMembersOf(ctx, org.id), isCurrent: org.id === ctx.actor.tenantId })
  return result
}

/** Counts another organisation's active members by looking into it for one query (the caller administers it). */
async function activeMembersOf(ctx: DomainContext, tenantId: string): Promise<number> {
  if (tenantId !== ctx.actor.tenantId) await ctx.tx.execute(sql`select set_config('app.tenant_id', ${tenantId}, true)`)
  const [row] = await ctx.tx
    .select({ n: count() })
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.status, 'active')))
  if (tenantId !== ctx.actor.tenantId) await ctx.tx.execute(sql`select set_config('app.tenant_id', ${ctx.actor.tenantId}, true)`)
  return row?.n ?? 0
}

/**
 * POST /api/admin/organisations/{id}/members: adds a person who has an account, by e-mail, with a
 * role. No account: 404 on the e-mail (invite them instead); a member already: 409.
 */
export async function addMember(ctx: DomainContext, organisationId: string, input: AddMemberInput, meta: RequestMeta): Promise<AdminUser> {
  if (organisationId !== ctx.actor.tenantId) throw notFound()
  await lockMembers(ctx)
  const [person] = await ctx.tx
    .select({ id: users.id, status: users.status })
    .from(users)
    .where(sql`lower(${users.email}) = ${input.email.toLowerCase()}`)
    .limit(1)
  if (!person || person.status === 'deleted') {
    throw new Problem({
      ...problems.notFound('No account uses this e-mail address.'),
      remediation: 'Send them an invite instead: it lets them create an account.',
      errors: { email: ['No account uses this e-mail address. Send an invite instead.'] },
    })
  }
  const [existing] = await ctx.tx
    .select({ status: memberships.status })
    .from(memberships)
    .where(and(eq(memberships.tenantId, ctx.actor.tenantId), eq(memberships.userId, person.id)))
    .limit(1)
  if (existing) {
    throw new Problem({
      status: 409,
      title: 'Conflict',
      detail: 'This person is already a member of the organisation.',
      code: 'KR_ALREADY_MEMBER',
      errors: { email: ['This person is already a member of the organisation.'] },
    })
  }
  await ensureFreeSeat(ctx)
  await ctx.tx
    .insert(memberships)
    .values({ tenantId: ctx.actor.tenantId, userId: person.id, roleKey: input.roleKey, status: 'active', isDefault: false, createdAt: ctx.now, updatedAt: ctx.now })
  await audit(ctx, meta, 'admin.member.added', person.id, { roleKey: input.roleKey })
  await recordChange(ctx, 'Membership', person.id, 'Created')
  return detail(ctx, person.id)
}

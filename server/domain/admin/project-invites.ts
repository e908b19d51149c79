import { createHash, randomInt } from 'node:crypto'
import { and, desc, eq, or, sql } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { tenants, users } from '#server/db/schema'
import { projectInvites } from '#server/db/schema-admin'
import { documentPermissions } from '#server/db/schema-documents'
import { projects } from '#server/db/schema-reporting'
import { withTenant } from '#server/db/tenancy'
import type { RoleKey } from '#server/domain/tenancy/roles'
import { hashToken, newToken } from '#server/domain/auth/tokens'
import { enqueueMail } from '#server/domain/mail'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import { decodeCursor, encodeCursor } from '#server/domain/tenancy/paging'
import { isUuid } from '~/lib/schemas/uuid'
import { Problem, problems } from '#server/http/problem'
import {
  formatInviteCode,
  INVITE_CODE_ALPHABET,
  INVITE_CODE_LENGTH,
  type CreatedProjectInvite,
  type ProjectInvite,
  type ProjectInviteClaimed,
  type ProjectInviteLanding,
  type ProjectInviteStatus,
} from '~/lib/admin/invites'
import { atLeast, ROLE_DEFAULT_LEVEL } from '~/lib/documents/rules'
import type { PermissionLevel } from '~/lib/documents/types'
import type { ProjectInviteCreateInput } from '~/lib/schemas/admin-invites'
import { auditInvite, displayNameOf, gone, hasAnyMembership, iso, joinOrganisation, organisationOf, roleName, type RequestMeta } from './invites-shared'
import { codeGuessWait, recordWrongCode } from './project-invites-limits'

/**
 * Project invites (docs/admin/invites.md "Project invites"): a link `/invite/project/{token}` and a
 * short code (8 characters of an unambiguous alphabet, shown as XXXX-XXXX) a person can type on
 * site. Both are shown once, when the invite is made; only their SHA-256 is stored. Claiming
 * joins the organisation with the invite's role when the person is not a member yet (an active
 * member keeps their membership and role), and grants the project: a document permission entry
 * for the person on the project, at the level the role has by default (Administrator manage,
 * Read & Write edit, Read Only view), never lowering a level they already had there.
 */

export const PROJECT_INVITE_TTL_DAYS = 14

type Row = typeof projectInvites.$inferSelect

export function projectInviteStatus(row: Pick<Row, 'cancelledAt' | 'expiresAt' | 'maxUses' | 'useCount'>, now: Date): ProjectInviteStatus {
  if (row.cancelledAt) return 'cancelled'
  if (row.maxUses !== null && row.useCount >= row.maxUses) return 'used-up'
  if (row.expiresAt.getTime() <= now.getTime()) return 'expired'
  return 'active'
}

export function hashCode(normalised: string): string {
  return createHash('sha256').update(`invite-code:${normalised}`).digest('base64url')
}

function newCode(): string {
  let code = ''
  for (let i = 0; i < INVITE_CODE_LENGTH; i++) code += INVITE_CODE_ALPHABET[randomInt(INVITE_CODE_ALPHABET.length)]
  return code
}

function viewOf(row: Row, projectTitle: string | null, creator: { id: string; displayName: string } | null, now: Date): ProjectInvite {
  return {
    id: row.id,
    projectId: row.projectId,
    projectTitle,
    email: row.email,
    roleKey: row.roleKey,
    roleName: roleName(row.roleKey),
    message: row.message,
    status: projectInviteStatus(row, now),
    maxUses: row.maxUses,
    useCount: row.useCount,
    hasCode: row.codeHash !== null,
    createdBy: creator,
    expiresAtUtc: row.expiresAt.toISOString(),
    cancelledAtUtc: iso(row.cancelledAt),
    createdAtUtc: row.createdAt.toISOString(),
  }
}

async function findProject(ctx: DomainContext, projectId: string): Promise<{ id: string; title: string | null }> {
  if (!isUuid(projectId)) throw new Problem(problems.notFound('There is no such project in this organisation.'))
  const [project] = await ctx.tx
    .select({ id: projects.id, title: projects.title })
    .from(projects)
    .where(and(eq(projects.tenantId, ctx.actor.tenantId), eq(projects.id, projectId)))
  if (!project) throw new Problem(problems.notFound('There is no such project in this organisation.'))
  return project
}

export async function createProjectInvite(ctx: DomainContext, projectId: string, input: ProjectInviteCreateInput, meta: RequestMeta): Promise<CreatedProjectInvite> {
  const project = await findProject(ctx, projectId)
  const { token, hash } = newToken()
  const expiresAt = new Date(ctx.now.getTime() + (input.expiresInDays ?? PROJECT_INVITE_TTL_DAYS) * 24 * 60 * 60_000)
  let code = ''
  let row: Row | undefined
  // 29^8 codes: a clash with a stored one is very unlikely; draw again if it happens.
  for (let attempt = 0; attempt < 5 && !row; attempt++) {
    code = newCode()
    const [clash] = await ctx.tx.execute(sql`select 1 from project_invites where code_hash = ${hashCode(code)}`).then((r) => (r as unknown as { rows: unknown[] }).rows)
    if (clash) continue
    ;[row] = await ctx.tx
      .insert(projectInvites)
      .values({
        tenantId: ctx.actor.tenantId,
        projectId: project.id,
        email: input.email ?? null,
        roleKey: input.roleKey,
        message: input.message ?? null,
        tokenHash: hash,
        codeHash: hashCode(code),
        createdBy: ctx.actor.userId,
        expiresAt,
        maxUses: input.maxUses ?? null,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      })
      .returning()
  }
  if (!row) throw new Error('project invite not created')
  const link = `${meta.publicUrl}/invite/project/${token}`
  const [creator] = await ctx.tx.select({ id: users.id, displayName: users.displayName }).from(users).where(eq(users.id, ctx.actor.userId))
  if (input.email) {
    const [organisation] = await ctx.tx.select({ name: tenants.name }).from(tenants).where(eq(tenants.id, ctx.actor.tenantId))
    const title = project.title ?? 'Untitled Project'
    const who = creator?.displayName ?? 'Someone'
    await enqueueMail(ctx.tx, {
      tenantId: ctx.actor.tenantId,
      to: input.email,
      template: 'project-invite',
      variables: {
        publicUrl: meta.publicUrl,
        organisationName: organisation?.name ?? 'an organisation',
        inviterName: who,
        projectTitle: title,
        roleName: roleName(input.roleKey),
        message: input.message ?? null,
        acceptUrl: link,
        code: formatInviteCode(code),
        expiresAt: expiresAt.toUTCString(),
      },
    })
  }
  await auditInvite(ctx, meta, 'admin.project-invite.created', 'ProjectInvite', row.id, {
    projectId: project.id,
    roleKey: row.roleKey,
    email: row.email,
    maxUses: row.maxUses,
    expiresAt: row.expiresAt.toISOString(),
  })
  await recordChange(ctx, 'Invite', row.id, 'Created')
  return { invite: viewOf(row, project.title, creator ?? null, ctx.now), token, link, code: formatInviteCode(code) }
}

export async function listProjectInvites(
  ctx: DomainContext,
  projectId: string,
  query: { after?: string | undefined; limit: number },
): Promise<{ items: ProjectInvite[]; nextCursor: string | null }> {
  const project = await findProject(ctx, projectId)
  const cursor = decodeCursor(query.after)
  const rows = await ctx.tx
    .select({ invite: projectInvites, creator: { id: users.id, displayName: users.displayName } })
    .from(projectInvites)
    .leftJoin(users, eq(users.id, projectInvites.createdBy))
    .where(
      and(
        eq(projectInvites.tenantId, ctx.actor.tenantId),
        eq(projectInvites.projectId, project.id),
        cursor
          ? or(
              sql`${projectInvites.createdAt} < ${cursor.createdAt.toISOString()}::timestamptz`,
              and(sql`${projectInvites.createdAt} = ${cursor.createdAt.toISOString()}::timestamptz`, sql`${projectInvites.id} < ${cursor.id}::uuid`),
            )
          : undefined,
      ),
    )
    .orderBy(desc(projectInvites.createdAt), desc(projectInvites.id))
    .limit(query.limit + 1)
  const page = rows.slice(0, query.limit)
  const last = page[page.length - 1]
  return {
    items: page.map((r) => viewOf(r.invite, project.title, r.creator?.id ? { id: r.creator.id, displayName: r.creator.displayName } : null, ctx.now)),
    nextCursor: rows.length > query.limit && last ? encodeCursor(last.invite) : null,
  }
}

/** Cancels a project invite: its link and code stop working. Cancelling twice changes nothing. */
export async function cancelProjectInvite(ctx: DomainContext, inviteId: string, meta: RequestMeta): Promise<ProjectInvite> {
  const missing = () => new Problem(problems.notFound('There is no such project invite in this organisation.'))
  if (!isUuid(inviteId)) throw missing()
  const [row] = await ctx.tx
    .select()
    .from(projectInvites)
    .where(and(eq(projectInvites.tenantId, ctx.actor.tenantId), eq(projectInvites.id, inviteId)))
    .for('update')
  if (!row) throw missing()
  const [project] = await ctx.tx
    .select({ title: projects.title })
    .from(projects)
    .where(and(eq(projects.tenantId, ctx.actor.tenantId), eq(projects.id, row.projectId)))
  const [creator] = row.createdBy ? await ctx.tx.select({ id: users.id, displayName: users.displayName }).from(users).where(eq(users.id, row.createdBy)) : []
  if (row.cancelledAt) return viewOf(row, project?.title ?? null, creator ?? null, ctx.now)
  const [updated] = await ctx.tx
    .update(projectInvites)
    .set({ cancelledAt: ctx.now, updatedAt: ctx.now })
    .where(and(eq(projectInvites.tenantId, ctx.actor.tenantId), eq(projectInvites.id, row.id)))
    .returning()
  if (!updated) throw missing()
  await auditInvite(ctx, meta, 'admin.project-invite.cancelled', 'ProjectInvite', row.id, { projectId: row.projectId })
  await recordChange(ctx, 'Invite', row.id, 'Updated')
  return viewOf(updated, project?.title ?? null, creator ?? null, ctx.now)
}

// ---- The holder of a link or a code ----

const STATUS_DETAIL: Record<ProjectInviteStatus, string> = {
  active: 'This invitation is open. Accept it to join the project.',
  'used-up': 'This invitation has been used as many times as it allows. Ask the project’s administrator for a new one.',
  cancelled: 'This invitation was cancelled by the organisation. Ask its administrator for a new one if you still need access.',
  expired: 'This invitation has expired. Ask the project’s administrator for a new one.',
}

function unknownLink(): Problem {
  return new Problem({
    status: 404,
    title: 'Not found',
    detail: 'This invitation link is not valid. Check that you copied the whole link.',
    code: 'KR_INVITE_NOT_FOUND',
    remediation: 'Ask the project’s administrator for a new link or code.',
  })
}

/** A wrong code answers the same whether it never existed, expired, was cancelled or is used up: no oracle. */
function wrongCode(): Problem {
  return new Problem({
    status: 404,
    title: 'Not found',
    detail: 'This invite code does not work. Check the 8 characters, or ask for a new code.',
    code: 'KR_INVITE_CODE_INVALID',
    errors: { code: ['This invite code does not work. Check the 8 characters, or ask for a new code.'] },
  })
}

function notActive(status: Exclude<ProjectInviteStatus, 'active'>): Problem {
  const codes = { 'used-up': 'KR_INVITE_USED', cancelled: 'KR_INVITE_CANCELLED', expired: 'KR_INVITE_EXPIRED' } as const
  return gone(codes[status], STATUS_DETAIL[status], 'Ask the project’s administrator for a new invitation.')
}

export async function projectInviteLanding(db: Database, token: string, now: Date): Promise<ProjectInviteLanding> {
  const [row] = await db
    .select()
    .from(projectInvites)
    .where(eq(projectInvites.tokenHash, hashToken(token)))
    .limit(1)
  if (!row) throw unknownLink()
  const organisation = await organisationOf(db, row.tenantId)
  const [project] = await withTenant(db, row.tenantId, (tx) =>
    tx
      .select({ title: projects.title })
      .from(projects)
      .where(and(eq(projects.tenantId, row.tenantId), eq(projects.id, row.projectId))),
  )
  const status = projectInviteStatus(row, now)
  return {
    organisationName: organisation.name,
    projectTitle: project?.title ?? null,
    roleKey: row.roleKey,
    roleName: roleName(row.roleKey),
    message: row.message,
    inviterName: await displayNameOf(db, row.createdBy),
    email: row.email,
    status,
    statusDetail: STATUS_DETAIL[status],
    expiresAtUtc: row.expiresAt.toISOString(),
  }
}

/** POST /api/project-invites/claim: by the link's token. */
export async function claimProjectInvite(db: Database, session: { userId: string }, token: string, meta: RequestMeta, now: Date): Promise<ProjectInviteClaimed> {
  const [row] = await db
    .select()
    .from(projectInvites)
    .where(eq(projectInvites.tokenHash, hashToken(token)))
    .limit(1)
  if (!row) throw unknownLink()
  const status = projectInviteStatus(row, now)
  if (status !== 'active') throw notActive(status)
  return acceptProjectInvite(db, row, session.userId, 'link', meta, now)
}

/**
 * POST /api/project-invites/codes/claim: by the typed code (already normalised). Wrong codes count
 * against the account and the client address (project-invites-limits.ts); past the limit every
 * attempt, right or wrong, answers 429 until the hour is over.
 */
export async function claimProjectInviteCode(db: Database, session: { userId: string }, code: string, meta: RequestMeta, now: Date): Promise<ProjectInviteClaimed> {
  await codeGuessWait(db, { userId: session.userId, ip: meta.ip }, now)
  const [row] = await db
    .select()
    .from(projectInvites)
    .where(eq(projectInvites.codeHash, hashCode(code)))
    .limit(1)
  if (!row || projectInviteStatus(row, now) !== 'active') {
    await recordWrongCode(db, { userId: session.userId, ip: meta.ip }, now)
    throw wrongCode()
  }
  return acceptProjectInvite(db, row, session.userId, 'code', meta, now)
}

async function acceptProjectInvite(db: Database, found: Row, userId: string, via: 'link' | 'code', meta: RequestMeta, now: Date): Promise<ProjectInviteClaimed> {
  const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId))
  if (found.email && user?.email.trim().toLowerCase() !== found.email.trim().toLowerCase()) {
    throw new Problem({
      status: 403,
      title: 'Forbidden',
      // A typed code must not tell a guesser whose it is.
      detail:
        via === 'code'
          ? 'This invitation is for another e-mail address. Sign in with the address it was sent to.'
          : `This invitation is for ${found.email}, but you are signed in as ${user?.email ?? 'someone else'}. Sign in with ${found.email} to accept it.`,
      code: 'KR_INVITE_WRONG_ACCOUNT',
    })
  }
  const isDefault = !(await hasAnyMembership(db, userId))
  const organisation = await organisationOf(db, found.tenantId)
  return withTenant(db, found.tenantId, async (tx) => {
    const roleKey = found.roleKey as RoleKey
    const ctx: DomainContext = { tx, actor: { tenantId: found.tenantId, userId, roleKey }, now }
    const [row] = await tx
      .select()
      .from(projectInvites)
      .where(and(eq(projectInvites.tenantId, found.tenantId), eq(projectInvites.id, found.id)))
      .for('update')
    if (!row) throw via === 'code' ? wrongCode() : unknownLink()
    const status = projectInviteStatus(row, now)
    if (status !== 'active') throw via === 'code' ? wrongCode() : notActive(status)
    const [project] = await tx
      .select({ id: projects.id, title: projects.title })
      .from(projects)
      .where(and(eq(projects.tenantId, found.tenantId), eq(projects.id, row.projectId)))
    if (!project) throw via === 'code' ? wrongCode() : unknownLink()
    const membership = await joinOrganisation(ctx, { userId, roleKey, isDefault, reactivate: false })
    const level = await grantProject(ctx, project.id, userId, ROLE_DEFAULT_LEVEL[roleKey])
    // A second claim by someone who already has it all changes nothing and uses nothing up.
    const changed = membership.joined || level.changed
    if (changed) {
      await tx
        .update(projectInvites)
        .set({ useCount: sql`${projectInvites.useCount} + 1`, updatedAt: now })
        .where(and(eq(projectInvites.tenantId, found.tenantId), eq(projectInvites.id, row.id)))
      await auditInvite(ctx, meta, 'admin.project-invite.claimed', 'ProjectInvite', row.id, {
        projectId: project.id,
        roleKey,
        via,
        joined: membership.joined,
        level: level.level,
      })
      await recordChange(ctx, 'Invite', row.id, 'Updated')
    }
    return {
      organisationId: organisation.id,
      organisationName: organisation.name,
      organisationSlug: organisation.slug,
      roleKey: membership.roleKey,
      joined: membership.joined,
      projectId: project.id,
      projectTitle: project.title,
      level: level.level,
    }
  })
}

/** The person's own entry on the project: set to `level`, unless they already have that or more there. */
async function grantProject(ctx: DomainContext, projectId: string, userId: string, level: PermissionLevel): Promise<{ level: PermissionLevel; changed: boolean }> {
  const where = and(
    eq(documentPermissions.tenantId, ctx.actor.tenantId),
    eq(documentPermissions.targetKind, 'project'),
    eq(documentPermissions.targetId, projectId),
    eq(documentPermissions.subjectKind, 'user'),
    eq(documentPermissions.subject, userId),
  )
  const [existing] = await ctx.tx.select({ level: documentPermissions.level }).from(documentPermissions).where(where).for('update')
  if (existing && atLeast(existing.level as PermissionLevel, level)) return { level: existing.level as PermissionLevel, changed: false }
  if (existing) await ctx.tx.update(documentPermissions).set({ level, updatedBy: ctx.actor.userId, updatedAt: ctx.now }).where(where)
  else
    await ctx.tx.insert(documentPermissions).values({
      tenantId: ctx.actor.tenantId,
      projectId,
      targetKind: 'project',
      targetId: projectId,
      subjectKind: 'user',
      subject: userId,
      level,
      updatedBy: ctx.actor.userId,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
  return { level, changed: true }
}

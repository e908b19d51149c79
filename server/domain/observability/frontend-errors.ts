import { and, desc, eq, gte, ilike, or, sql, type SQL } from 'drizzle-orm'
import { memberships, users } from '#server/db/schema'
import { frontendErrors } from '#server/db/schema-observability'
import { escapeLike } from '#server/domain/documents/search'
import type { DomainContext } from '#server/domain/tenancy/context'
import { Problem, problems } from '#server/http/problem'
import { mapStack, type SourceMapStore, type StackFrame } from './source-maps'

/**
 * Administration › Frontend errors (issue 15): the organisation's errors grouped by fingerprint
 * (message and top three frames, server/domain/observability/fingerprint.ts), and one group's
 * occurrences with their stacks mapped back to the source. Read in the administrator's tenant
 * transaction: row-level security shows this organisation's rows only (never another's, never the
 * untenanted ones), and every query names the tenant as well. Times are the server's (received).
 */

export type FrontendErrorFilters = { q?: string | undefined; since?: Date | undefined; visitor?: string | undefined }
export type PageRequest = { page: number; limit: number }

export type Person = { id: string; displayName: string | null; email: string | null }

export type FrontendErrorGroup = {
  fingerprint: string
  name: string
  message: string
  count: number
  firstSeenUtc: string
  lastSeenUtc: string
  users: number
  visitors: number
  lastPath: string | null
  lastRelease: string | null
}

export type FrontendErrorOccurrence = {
  id: string
  name: string
  message: string
  path: string | null
  userAgent: string | null
  release: string | null
  visitorId: string | null
  user: Person | null
  occurredAtUtc: string
  receivedAtUtc: string
  stack: string | null
  frames: StackFrame[]
}

const FINGERPRINT = /^[0-9a-f]{64}$/
/** How many of the people an error happened to the detail names. */
const AFFECTED_USERS_MAX = 50

const fe = frontendErrors

function filtersOf(ctx: DomainContext, filters: FrontendErrorFilters): SQL | undefined {
  const pattern = filters.q ? `%${escapeLike(filters.q)}%` : undefined
  return and(
    eq(fe.tenantId, ctx.actor.tenantId),
    pattern ? or(ilike(fe.message, pattern), ilike(fe.path, pattern), ilike(fe.release, pattern)) : undefined,
    filters.since ? gte(fe.receivedAt, filters.since) : undefined,
    filters.visitor ? eq(fe.visitorId, filters.visitor) : undefined,
  )
}

/** The group's columns over its rows: counts, first and last seen, and the latest row's message, name, path and release. */
const groupColumns = {
  fingerprint: fe.fingerprint,
  count: sql<number>`count(*)`.mapWith(Number),
  firstSeen: sql<Date>`min(${fe.receivedAt})`.mapWith((v: string | Date) => new Date(v)),
  lastSeen: sql<Date>`max(${fe.receivedAt})`.mapWith((v: string | Date) => new Date(v)),
  users: sql<number>`count(distinct ${fe.userId})`.mapWith(Number),
  visitors: sql<number>`count(distinct ${fe.visitorId})`.mapWith(Number),
  name: sql<string>`(array_agg(${fe.name} order by ${fe.receivedAt} desc, ${fe.id} desc))[1]`,
  message: sql<string>`(array_agg(${fe.message} order by ${fe.receivedAt} desc, ${fe.id} desc))[1]`,
  lastPath: sql<string | null>`(array_agg(${fe.path} order by ${fe.receivedAt} desc, ${fe.id} desc))[1]`,
  lastRelease: sql<string | null>`(array_agg(${fe.release} order by ${fe.receivedAt} desc, ${fe.id} desc))[1]`,
}

type GroupRow = { fingerprint: string; count: number; firstSeen: Date; lastSeen: Date; users: number; visitors: number; name: string; message: string; lastPath: string | null; lastRelease: string | null }

function groupOf(row: GroupRow): FrontendErrorGroup {
  return {
    fingerprint: row.fingerprint,
    name: row.name,
    message: row.message,
    count: row.count,
    firstSeenUtc: row.firstSeen.toISOString(),
    lastSeenUtc: row.lastSeen.toISOString(),
    users: row.users,
    visitors: row.visitors,
    lastPath: row.lastPath,
    lastRelease: row.lastRelease,
  }
}

/** GET /api/admin/frontend-errors: groups, most recently seen first; the filters pick the occurrences counted. */
export async function listFrontendErrorGroups(ctx: DomainContext, filters: FrontendErrorFilters, paging: PageRequest) {
  const rows = await ctx.tx
    .select(groupColumns)
    .from(fe)
    .where(filtersOf(ctx, filters))
    .groupBy(fe.fingerprint)
    .orderBy(desc(sql`max(${fe.receivedAt})`), fe.fingerprint)
    .limit(paging.limit + 1)
    .offset((paging.page - 1) * paging.limit)
  return { items: rows.slice(0, paging.limit).map(groupOf), page: paging.page, pageSize: paging.limit, hasMore: rows.length > paging.limit }
}

function personOf(row: { userId: string | null; displayName: string | null; email: string | null }): Person | null {
  return row.userId ? { id: row.userId, displayName: row.displayName, email: row.email } : null
}

/**
 * GET /api/admin/frontend-errors/{fingerprint}: the group over all its occurrences, the people it
 * happened to, and a page of occurrences (newest first) with mapped stacks. 404 when this
 * organisation has no such error (another's fingerprint included).
 */
export async function frontendErrorDetail(ctx: DomainContext, fingerprint: string, paging: PageRequest, maps: SourceMapStore) {
  const notFound = () => new Problem(problems.notFound('This organisation has no such frontend error.'))
  if (!FINGERPRINT.test(fingerprint)) throw notFound()
  const scope = and(eq(fe.tenantId, ctx.actor.tenantId), eq(fe.fingerprint, fingerprint))
  const [group] = await ctx.tx.select(groupColumns).from(fe).where(scope).groupBy(fe.fingerprint)
  if (!group) throw notFound()

  // A person is named only while a member of this organisation (the row keeps the id either way).
  const member = and(eq(memberships.tenantId, ctx.actor.tenantId), eq(memberships.userId, fe.userId))
  const people = await ctx.tx
    .select({ userId: fe.userId, displayName: users.displayName, email: users.email, last: sql`max(${fe.receivedAt})` })
    .from(fe)
    .leftJoin(memberships, member)
    .leftJoin(users, eq(users.id, memberships.userId))
    .where(and(scope, sql`${fe.userId} is not null`))
    .groupBy(fe.userId, users.displayName, users.email)
    .orderBy(desc(sql`max(${fe.receivedAt})`))
    .limit(AFFECTED_USERS_MAX)

  const rows = await ctx.tx
    .select({
      id: fe.id,
      name: fe.name,
      message: fe.message,
      path: fe.path,
      userAgent: fe.userAgent,
      release: fe.release,
      visitorId: fe.visitorId,
      userId: fe.userId,
      displayName: users.displayName,
      email: users.email,
      occurredAt: fe.occurredAt,
      receivedAt: fe.receivedAt,
      stack: fe.stack,
    })
    .from(fe)
    .leftJoin(memberships, member)
    .leftJoin(users, eq(users.id, memberships.userId))
    .where(scope)
    .orderBy(desc(fe.receivedAt), desc(fe.id))
    .limit(paging.limit + 1)
    .offset((paging.page - 1) * paging.limit)

  const items: FrontendErrorOccurrence[] = []
  for (const row of rows.slice(0, paging.limit)) {
    items.push({
      id: row.id,
      name: row.name,
      message: row.message,
      path: row.path,
      userAgent: row.userAgent,
      release: row.release,
      visitorId: row.visitorId,
      user: personOf(row),
      occurredAtUtc: row.occurredAt.toISOString(),
      receivedAtUtc: row.receivedAt.toISOString(),
      stack: row.stack,
      frames: await mapStack(row.stack, maps),
    })
  }
  return {
    group: groupOf(group),
    affectedUsers: people.flatMap((p) => personOf(p) ?? []),
    occurrences: { items, page: paging.page, pageSize: paging.limit, hasMore: rows.length > paging.limit },
  }
}

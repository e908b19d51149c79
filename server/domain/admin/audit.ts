import { and, asc, desc, eq, gte, inArray, isNotNull, like, lt, lte, max, or, sql, type SQL } from 'drizzle-orm'
import { z } from 'zod'
import { auditEvents, memberships, users } from '#server/db/schema'
import { documentFolders, documents } from '#server/db/schema-documents'
import { projects } from '#server/db/schema-reporting'
import { recordAuditIn } from '#server/domain/audit'
import { escapeLike } from '#server/domain/documents/search'
import type { DomainContext } from '#server/domain/tenancy/context'
import { Problem, problems } from '#server/http/problem'
import type { AuditActionCount, AuditEntry } from '~/lib/admin/audit'
import { decodeOpaque, encodeOpaque } from '#server/http/opaque'

/**
 * Administration › Audit (issue 13, docs/admin/audit.md): the organisation's audit log, newest
 * first, filtered and paged by its place in the tenant's hash chain (chain_seq, unique per tenant
 * and only ever growing, so a page never skips or repeats an entry while entries are added).
 * Row-level security keeps every query inside the session's tenant.
 */

export const AUDIT_PAGE_SIZE = 50
export const AUDIT_PAGE_MAX = 200
/** Rows per database round trip when an export streams the log. */
export const EXPORT_BATCH = 500

export type AuditFilters = {
  action?: string | undefined
  actorUserId?: string | undefined
  targetType?: string | undefined
  targetId?: string | undefined
  /** ISO date (YYYY-MM-DD, from its start) or date-time, inclusive. */
  from?: string | undefined
  /** ISO date (YYYY-MM-DD, to its end) or date-time, inclusive. */
  to?: string | undefined
  q?: string | undefined
}

/** The JSON shapes are shared with the screen (app/lib/admin/audit.ts). */
export type { AuditActionCount, AuditActor, AuditEntry } from '~/lib/admin/audit'

/** Where a request came from, for the audit entry the export and the check write. */
export type RequestOrigin = { ip?: string | undefined; correlationId?: string | undefined }

// ---- Cursor ------------------------------------------------------------------------------------

const cursorShape = z.object({ s: z.number().int().min(1) })

export function encodeAuditCursor(chainSeq: number): string {
  return encodeOpaque({ s: chainSeq })
}

export function decodeAuditCursor(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined
  try {
    return cursorShape.parse(decodeOpaque(value)).s
  } catch {
    throw new Problem(problems.badRequest('The paging cursor is not valid.', { after: ['The paging cursor is not valid. Start again from the first page.'] }))
  }
}

// ---- Filters -----------------------------------------------------------------------------------

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/
const DAY_MS = 24 * 60 * 60 * 1000

/** The first moment a `from` value includes, and the first moment past what a `to` value includes. */
function bounds(filters: AuditFilters): { from?: Date; toInclusive?: Date; toExclusive?: Date } {
  const from = filters.from ? new Date(DATE_ONLY.test(filters.from) ? `${filters.from}T00:00:00Z` : filters.from) : undefined
  const to = filters.to
    ? DATE_ONLY.test(filters.to)
      ? { toExclusive: new Date(new Date(`${filters.to}T00:00:00Z`).getTime() + DAY_MS) }
      : { toInclusive: new Date(filters.to) }
    : {}
  if (from && (to.toExclusive ? from >= to.toExclusive : to.toInclusive ? from > to.toInclusive : false)) {
    throw new Problem(problems.badRequest('The period ends before it starts.', { to: ['The end of the period must not be before its start.'] }))
  }
  return { ...(from && { from }), ...to }
}

/**
 * An action ending in "." (or ".*", or "*") is a prefix: `admin.` matches every admin.* action;
 * anything else matches exactly.
 */
function actionCondition(action: string): SQL {
  const prefix = action.endsWith('.*') ? action.slice(0, -1) : action.endsWith('*') ? action.slice(0, -1) : action.endsWith('.') ? action : undefined
  return prefix !== undefined ? like(auditEvents.action, `${escapeLike(prefix)}%`) : eq(auditEvents.action, action)
}

/** The WHERE conditions of the filters (the tenant is row-level security's business). */
export function filterConditions(filters: AuditFilters): SQL[] {
  const conditions: SQL[] = []
  const { from, toInclusive, toExclusive } = bounds(filters)
  if (filters.action) conditions.push(actionCondition(filters.action))
  if (filters.actorUserId) conditions.push(eq(auditEvents.actorUserId, filters.actorUserId))
  if (filters.targetType) conditions.push(eq(auditEvents.targetType, filters.targetType))
  if (filters.targetId) conditions.push(eq(auditEvents.targetId, filters.targetId))
  if (from) conditions.push(gte(auditEvents.createdAt, from))
  if (toInclusive) conditions.push(lte(auditEvents.createdAt, toInclusive))
  if (toExclusive) conditions.push(lt(auditEvents.createdAt, toExclusive))
  const q = filters.q?.trim()
  if (q) {
    const pattern = `%${escapeLike(q)}%`
    const matches = or(
      sql`${auditEvents.action} ilike ${pattern}`,
      sql`${auditEvents.targetType} ilike ${pattern}`,
      sql`${auditEvents.targetId} ilike ${pattern}`,
      sql`exists (select 1 from ${users} where ${users.id} = ${auditEvents.actorUserId} and (${users.email} ilike ${pattern} or ${users.displayName} ilike ${pattern}))`,
    )
    if (matches) conditions.push(matches)
  }
  return conditions
}

// ---- Entries -----------------------------------------------------------------------------------

const entryColumns = {
  id: auditEvents.id,
  chainSeq: auditEvents.chainSeq,
  action: auditEvents.action,
  actorUserId: auditEvents.actorUserId,
  actorDisplayName: users.displayName,
  actorEmail: users.email,
  targetType: auditEvents.targetType,
  targetId: auditEvents.targetId,
  ip: auditEvents.ip,
  correlationId: auditEvents.correlationId,
  data: auditEvents.data,
  createdAt: auditEvents.createdAt,
  hash: auditEvents.hash,
  prevHash: auditEvents.prevHash,
}

type EntryRow = {
  id: string
  chainSeq: number | null
  action: string
  actorUserId: string | null
  actorDisplayName: string | null
  actorEmail: string | null
  targetType: string | null
  targetId: string | null
  ip: string | null
  correlationId: string | null
  data: Record<string, unknown> | null
  createdAt: Date
  hash: string | null
  prevHash: string | null
}

function entryOf(row: EntryRow): AuditEntry {
  return {
    id: row.id,
    chainSeq: row.chainSeq ?? 0,
    action: row.action,
    actor: row.actorUserId ? { id: row.actorUserId, displayName: row.actorDisplayName, email: row.actorEmail } : null,
    targetType: row.targetType,
    targetId: row.targetId,
    targetName: null,
    ip: row.ip,
    correlationId: row.correlationId,
    data: row.data,
    createdAtUtc: row.createdAt.toISOString(),
    hash: row.hash,
    prevHash: row.prevHash,
  }
}

/**
 * One page of entries, newest first (highest chain_seq), after `afterSeq` when given. Fetches one
 * row more than asked to know whether a next page exists; `limit=1` (the control panel's and the
 * page's sample) is an index walk of two rows on (tenant_id, chain_seq).
 */
export async function auditPage(ctx: DomainContext, filters: AuditFilters, limit: number, afterSeq: number | undefined): Promise<{ items: AuditEntry[]; nextSeq: number | null }> {
  const conditions = filterConditions(filters)
  if (afterSeq !== undefined) conditions.push(lt(auditEvents.chainSeq, afterSeq))
  const rows = await ctx.tx
    .select(entryColumns)
    .from(auditEvents)
    .leftJoin(users, eq(users.id, auditEvents.actorUserId))
    .where(and(eq(auditEvents.tenantId, ctx.actor.tenantId), isNotNull(auditEvents.chainSeq), ...conditions))
    // chain_seq alone (unique in the tenant, never null: the trigger sets it): a backward walk of the index.
    .orderBy(desc(auditEvents.chainSeq))
    .limit(limit + 1)
  const page = rows.slice(0, limit)
  const last = page.at(-1)
  return { items: await withTargetNames(ctx, page.map(entryOf)), nextSeq: rows.length > limit && last?.chainSeq ? last.chainSeq : null }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * The names the log's sentences use for what an entry was about ("changed Sam Site’s role"): a
 * person's display name, a project's title, a document's number, a folder's name. One query per
 * kind of target on the page; a target removed since (a person no longer a member, or of another kind) keeps no name, and the
 * sentence says "a member", "a document" instead. Row-level security keeps each query in the tenant.
 */
async function withTargetNames(ctx: DomainContext, entries: AuditEntry[]): Promise<AuditEntry[]> {
  const idsOf = (...types: string[]) => [...new Set(entries.filter((e) => e.targetType && types.includes(e.targetType) && e.targetId && UUID.test(e.targetId)).map((e) => e.targetId as string))]
  const userIds = idsOf('User', 'user')
  const projectIds = idsOf('Project')
  const documentIds = idsOf('Document')
  const folderIds = idsOf('DocumentFolder')
  const tenantId = ctx.actor.tenantId
  const [people, projectRows, documentRows, folderRows] = await Promise.all([
    // People are named only while they are members of this organisation (users are not the tenant's rows).
    userIds.length
      ? ctx.tx
          .select({ id: users.id, name: users.displayName })
          .from(users)
          .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.tenantId, tenantId)))
          .where(inArray(users.id, userIds))
      : [],
    projectIds.length ? ctx.tx.select({ id: projects.id, name: projects.title }).from(projects).where(and(eq(projects.tenantId, tenantId), inArray(projects.id, projectIds))) : [],
    documentIds.length
      ? ctx.tx.select({ id: documents.id, name: documents.number }).from(documents).where(and(eq(documents.tenantId, tenantId), inArray(documents.id, documentIds)))
      : [],
    folderIds.length
      ? ctx.tx.select({ id: documentFolders.id, name: documentFolders.name }).from(documentFolders).where(and(eq(documentFolders.tenantId, tenantId), inArray(documentFolders.id, folderIds)))
      : [],
  ])
  const names = new Map<string, string>()
  for (const row of [...people, ...projectRows, ...documentRows, ...folderRows]) if (row.name) names.set(row.id, row.name)
  return entries.map((entry) => (entry.targetId && names.has(entry.targetId) ? { ...entry, targetName: names.get(entry.targetId) ?? null } : entry))
}

export async function listAudit(ctx: DomainContext, filters: AuditFilters, limit: number, after: string | undefined): Promise<{ items: AuditEntry[]; nextCursor: string | null }> {
  const afterSeq = decodeAuditCursor(after)
  const page = await auditPage(ctx, filters, limit, afterSeq)
  return { items: page.items, nextCursor: page.nextSeq ? encodeAuditCursor(page.nextSeq) : null }
}

/** The action names of the log (filtered like the entries) with how often and when last each happened. */
export async function listAuditActions(ctx: DomainContext, filters: AuditFilters): Promise<AuditActionCount[]> {
  const rows = await ctx.tx
    .select({ action: auditEvents.action, count: sql<number>`count(*)`.mapWith(Number), lastAt: max(auditEvents.createdAt) })
    .from(auditEvents)
    .where(and(eq(auditEvents.tenantId, ctx.actor.tenantId), ...filterConditions(filters)))
    .groupBy(auditEvents.action)
    .orderBy(asc(auditEvents.action))
  return rows.map((row) => ({ action: row.action, count: row.count, lastAtUtc: (row.lastAt ?? new Date(0)).toISOString() }))
}

/** Filters as recorded in an audit entry's data: only those given. */
export function filtersData(filters: AuditFilters): Record<string, string> {
  return Object.fromEntries(Object.entries(filters).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== ''))
}

/**
 * Before an export streams: checks the filters (a bad period is a 400 now, not a broken file
 * later) and records who exported what, committed before the first byte leaves.
 */
export async function recordAuditExport(ctx: DomainContext, what: 'entries' | 'actions', filters: AuditFilters, origin: RequestOrigin): Promise<void> {
  filterConditions(filters)
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'admin.audit.exported',
    targetType: 'AuditLog',
    targetId: ctx.actor.tenantId,
    ip: origin.ip,
    correlationId: origin.correlationId,
    data: { what, filters: filtersData(filters) },
    at: ctx.now,
  })
}

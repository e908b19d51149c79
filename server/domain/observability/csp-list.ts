import { and, desc, eq, gte, sql, type SQL } from 'drizzle-orm'
import type { AnyPgColumn } from 'drizzle-orm/pg-core'
import type { Tx } from '#server/db/client'
import { cspReports } from '#server/db/schema-observability'
import { Problem, problems } from '#server/http/problem'
import { sourceOf, type CspDisposition, type CspReportEntry, type CspReportGroup, type CspUntenantedGroup } from '~/lib/admin/csp-reports'
import { decodeOpaque, encodeOpaque } from '#server/http/opaque'

/**
 * Administration › Security › CSP reports: the reports visible in the transaction grouped by
 * directive and blocked URL (newest last-seen first, paged by number), a group's reports in full,
 * and — outside every tenant — the reports without an organisation as counts only.
 */

export type CspFilters = { directive?: string | undefined; since?: Date | undefined; disposition?: CspDisposition | undefined }
type Paging = { page: number; limit: number }

const t = cspReports

export function encodeCspGroup(directive: string, blockedUrl: string): string {
  return encodeOpaque([directive, blockedUrl])
}

function decodeCspGroup(value: string): { directive: string; blockedUrl: string } {
  try {
    const parsed: unknown = decodeOpaque(value)
    if (Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === 'string' && typeof parsed[1] === 'string') return { directive: parsed[0], blockedUrl: parsed[1] }
  } catch {
    // below
  }
  throw new Problem(problems.notFound('There is no such group of CSP reports.'))
}

function filtersOf(f: CspFilters): SQL | undefined {
  const where: SQL[] = []
  if (f.directive) where.push(eq(t.directive, f.directive))
  if (f.since) where.push(gte(t.receivedAt, f.since))
  if (f.disposition) where.push(eq(t.disposition, f.disposition))
  return where.length ? and(...where) : undefined
}

const newest = <T>(column: SQL | AnyPgColumn) => sql<T>`(array_agg(${column} order by ${t.receivedAt} desc, ${t.id} desc))[1]`
const countColumns = {
  directive: t.directive,
  blockedUrl: t.blockedUrl,
  count: sql<number>`count(*)`.mapWith(Number),
  firstSeen: sql<Date>`min(${t.receivedAt})`.mapWith((v: string | Date) => new Date(v)),
  lastSeen: sql<Date>`max(${t.receivedAt})`.mapWith((v: string | Date) => new Date(v)),
}
const groupColumns = {
  ...countColumns,
  documentUrl: newest<string | null>(t.documentUrl),
  sourceFile: newest<string | null>(t.sourceFile),
  lineNumber: newest<number | null>(t.lineNumber),
  columnNumber: newest<number | null>(t.columnNumber),
  dispositions: sql<string[]>`array_agg(distinct ${t.disposition})`,
}

type GroupRow = { directive: string; blockedUrl: string; count: number; firstSeen: Date; lastSeen: Date; documentUrl: string | null; sourceFile: string | null; lineNumber: number | string | null; columnNumber: number | string | null; dispositions: string[] | string }

function dispositionsOf(value: string[] | string): CspDisposition[] {
  // PGlite and node-postgres both answer a text[]; a driver that answers its literal ({a,b}) is read too.
  const list = Array.isArray(value) ? value : value.replace(/^\{|\}$/g, '').split(',')
  return (['enforce', 'report'] as const).filter((d) => list.includes(d))
}

function groupOf(row: GroupRow): CspReportGroup {
  const line = row.lineNumber === null ? null : Number(row.lineNumber)
  const column = row.columnNumber === null ? null : Number(row.columnNumber)
  return {
    group: encodeCspGroup(row.directive, row.blockedUrl),
    directive: row.directive,
    blockedUrl: row.blockedUrl,
    count: row.count,
    firstSeenUtc: row.firstSeen.toISOString(),
    lastSeenUtc: row.lastSeen.toISOString(),
    sampleDocumentUrl: row.documentUrl,
    sampleSource: sourceOf(row.sourceFile, line, column),
    dispositions: dispositionsOf(row.dispositions),
  }
}

const order = [sql`max(${t.receivedAt}) desc`, t.directive, t.blockedUrl]

export async function listCspGroups(tx: Tx, filters: CspFilters, paging: Paging): Promise<{ items: CspReportGroup[]; page: number; nextPage: number | null }> {
  const rows = await tx
    .select(groupColumns)
    .from(t)
    .where(filtersOf(filters))
    .groupBy(t.directive, t.blockedUrl)
    .orderBy(...order)
    .limit(paging.limit + 1)
    .offset((paging.page - 1) * paging.limit)
  return { items: rows.slice(0, paging.limit).map((r) => groupOf(r as GroupRow)), page: paging.page, nextPage: rows.length > paging.limit ? paging.page + 1 : null }
}

/** Outside every tenant: the reports without an organisation, the most frequent groups, counts only (no pages, no sources). */
export async function listUntenantedCspGroups(tx: Tx, filters: CspFilters, limit: number): Promise<CspUntenantedGroup[]> {
  const rows = await tx
    .select(countColumns)
    .from(t)
    .where(filtersOf(filters))
    .groupBy(t.directive, t.blockedUrl)
    .orderBy(sql`count(*) desc`, ...order)
    .limit(limit)
  return rows.map((r) => ({ directive: r.directive, blockedUrl: r.blockedUrl, count: r.count, firstSeenUtc: r.firstSeen.toISOString(), lastSeenUtc: r.lastSeen.toISOString() }))
}

/** A group and a page of its reports in full, newest first; 404 when the organisation has none of it. */
export async function listCspGroupReports(tx: Tx, group: string, paging: Paging): Promise<{ group: CspReportGroup; items: CspReportEntry[]; page: number; nextPage: number | null }> {
  const key = decodeCspGroup(group)
  const match = and(eq(t.directive, key.directive), eq(t.blockedUrl, key.blockedUrl))
  const [summary] = await tx.select(groupColumns).from(t).where(match).groupBy(t.directive, t.blockedUrl)
  if (!summary) throw new Problem(problems.notFound('There is no such group of CSP reports.'))
  const rows = await tx
    .select()
    .from(t)
    .where(match)
    .orderBy(desc(t.receivedAt), desc(t.id))
    .limit(paging.limit + 1)
    .offset((paging.page - 1) * paging.limit)
  return {
    group: groupOf(summary as GroupRow),
    items: rows.slice(0, paging.limit).map((r) => ({
      id: r.id,
      directive: r.directive,
      blockedUrl: r.blockedUrl,
      documentUrl: r.documentUrl,
      sourceFile: r.sourceFile,
      lineNumber: r.lineNumber,
      columnNumber: r.columnNumber,
      disposition: r.disposition === 'report' ? 'report' : 'enforce',
      sample: r.sample,
      userAgent: r.userAgent,
      receivedAtUtc: r.receivedAt.toISOString(),
    })),
    page: paging.page,
    nextPage: rows.length > paging.limit ? paging.page + 1 : null,
  }
}

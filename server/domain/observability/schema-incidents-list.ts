import { and, desc, eq, gte, ilike, sql, type SQL } from 'drizzle-orm'
import type { Tx } from '#server/db/client'
import { schemaIncidents } from '#server/db/schema-observability'
import { Problem, problems } from '#server/http/problem'
import { SCHEMA_INCIDENT_SOURCES, type SchemaIncident, type SchemaIncidentGroup, type SchemaIncidentScope, type SchemaIncidentSource } from '~/lib/admin/schema-incidents'
import { decodeOpaque, encodeOpaque } from '#server/http/opaque'

/**
 * Administration › Schema incidents: the incidents visible in the transaction (row-level security
 * picks the organisation's, or — outside every tenant — the instance's), grouped by call and field,
 * and the occurrences of one group. Paged by number: groups are aggregates, newest last-seen first.
 */

export type SchemaIncidentFilters = { path?: string | undefined; since?: Date | undefined; source?: SchemaIncidentSource | undefined }
type Paging = { page: number; limit: number }
type GroupKey = { source: SchemaIncidentSource; method: string; path: string; field: string }

export function encodeGroup(key: GroupKey): string {
  return encodeOpaque([key.source, key.method, key.path, key.field])
}

export function decodeGroup(value: string): GroupKey {
  try {
    const parsed: unknown = decodeOpaque(value)
    if (Array.isArray(parsed) && parsed.length === 4 && parsed.every((p) => typeof p === 'string') && (SCHEMA_INCIDENT_SOURCES as readonly string[]).includes(parsed[0] as string)) {
      const [source, method, path, field] = parsed as [SchemaIncidentSource, string, string, string]
      return { source, method, path, field }
    }
  } catch {
    // below
  }
  throw new Problem(problems.notFound('There is no such group of schema incidents.'))
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

function filtersOf(f: SchemaIncidentFilters): SQL[] {
  const t = schemaIncidents
  const where: SQL[] = []
  if (f.path) where.push(ilike(t.path, `%${escapeLike(f.path)}%`))
  if (f.since) where.push(gte(t.occurredAt, f.since))
  if (f.source) where.push(eq(t.source, f.source))
  return where
}

const t = schemaIncidents
const groupColumns = {
  source: t.source,
  method: t.method,
  path: t.path,
  field: t.field,
  count: sql<number>`count(*)`.mapWith(Number),
  firstSeen: sql<Date>`min(${t.occurredAt})`.mapWith((v: string | Date) => new Date(v)),
  lastSeen: sql<Date>`max(${t.occurredAt})`.mapWith((v: string | Date) => new Date(v)),
  lastStatus: sql<number>`(array_agg(${t.status} order by ${t.occurredAt} desc, ${t.id} desc))[1]`.mapWith(Number),
  lastExpected: sql<string>`(array_agg(${t.expected} order by ${t.occurredAt} desc, ${t.id} desc))[1]`,
  lastGot: sql<string>`(array_agg(${t.got} order by ${t.occurredAt} desc, ${t.id} desc))[1]`,
  lastCorrelationId: sql<string | null>`(array_agg(${t.correlationId} order by ${t.occurredAt} desc, ${t.id} desc))[1]`,
}

type GroupRow = { source: string; method: string; path: string; field: string; count: number; firstSeen: Date; lastSeen: Date; lastStatus: number; lastExpected: string; lastGot: string; lastCorrelationId: string | null }

function groupOf(row: GroupRow): SchemaIncidentGroup {
  const source = row.source === 'web' ? 'web' : 'server'
  return {
    group: encodeGroup({ source, method: row.method, path: row.path, field: row.field }),
    source,
    method: row.method,
    path: row.path,
    field: row.field,
    count: row.count,
    firstSeenUtc: row.firstSeen.toISOString(),
    lastSeenUtc: row.lastSeen.toISOString(),
    lastStatus: row.lastStatus,
    lastExpected: row.lastExpected,
    lastGot: row.lastGot,
    lastCorrelationId: row.lastCorrelationId,
  }
}

export async function listSchemaIncidentGroups(tx: Tx, filters: SchemaIncidentFilters, paging: Paging): Promise<{ items: SchemaIncidentGroup[]; page: number; nextPage: number | null }> {
  const where = filtersOf(filters)
  const rows = await tx
    .select(groupColumns)
    .from(t)
    .where(where.length ? and(...where) : undefined)
    .groupBy(t.source, t.method, t.path, t.field)
    .orderBy(sql`max(${t.occurredAt}) desc`, t.path, t.field, t.method, t.source)
    .limit(paging.limit + 1)
    .offset((paging.page - 1) * paging.limit)
  const more = rows.length > paging.limit
  return { items: rows.slice(0, paging.limit).map(groupOf), page: paging.page, nextPage: more ? paging.page + 1 : null }
}

/** One group and a page of its occurrences, newest first; 404 when the transaction sees none of it. */
export async function listSchemaIncidentOccurrences(tx: Tx, group: string, paging: Paging): Promise<{ group: SchemaIncidentGroup; items: SchemaIncident[]; page: number; nextPage: number | null }> {
  const key = decodeGroup(group)
  const match = and(eq(t.source, key.source), eq(t.method, key.method), eq(t.path, key.path), eq(t.field, key.field))
  const [summary] = await tx.select(groupColumns).from(t).where(match).groupBy(t.source, t.method, t.path, t.field)
  if (!summary) throw new Problem(problems.notFound('There is no such group of schema incidents.'))
  const rows = await tx
    .select()
    .from(t)
    .where(match)
    .orderBy(desc(t.occurredAt), desc(t.id))
    .limit(paging.limit + 1)
    .offset((paging.page - 1) * paging.limit)
  const more = rows.length > paging.limit
  return {
    group: groupOf(summary),
    items: rows.slice(0, paging.limit).map((r) => ({ id: r.id, status: r.status, expected: r.expected, got: r.got, correlationId: r.correlationId, release: r.release, occurredAtUtc: r.occurredAt.toISOString() })),
    page: paging.page,
    nextPage: more ? paging.page + 1 : null,
  }
}

export type { SchemaIncidentScope }

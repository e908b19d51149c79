import { and, asc, eq, gt, inArray, isNull, type SQL } from 'drizzle-orm'
import { changeLog, projects, reportItems, reports, tenantRevisions } from '#server/db/schema-reporting'
import { Problem } from '#server/http/problem'
import { ERROR_CODES } from '~/lib/constants'
import type { Item, Project, Report } from '~/lib/reporting/types'
import type { ChangeType, SyncedEntity } from './change-log'
import type { DomainContext } from './context'
import { itemColumns, toItems } from './item-view'
import { projectColumns, toProject } from './projects'
import { presentReports, selectReports } from './reports'
import { userRefs } from './user-refs'

/**
 * Mobile sync (docs/site-reporting.md "Change log"): a full snapshot without a cursor, then the
 * change log after a cursor, a page at a time. The cursor is the tenant revision the client has
 * seen, as a string; anything that is not a revision of this tenant is stale (410) and the client
 * starts over with a snapshot.
 */

/** How many change-log entries one answer carries (hasMore says whether more wait). */
export const SYNC_PAGE_SIZE = 500
/** A cursor is good for a day; the client then takes a fresh snapshot (spec §7 "Sync"). */
export const SYNC_CURSOR_TTL_MS = 24 * 60 * 60_000
/** Rows turned into JSON per batch of lookups (keeps every IN list well under the parameter limit). */
const VIEW_BATCH = 1000

export type SyncCursor = { value: string; expiresAtUtc: string }
export type SyncSnapshot = { snapshot: { projects: Project[]; reports: Report[]; reportItems: Item[] }; cursor: SyncCursor }
export type SyncChange = { entity: SyncedEntity; changeType: ChangeType; revision: number; entityId: string; data: Project | Report | Item | null }
export type SyncChanges = { changes: SyncChange[]; cursor: SyncCursor; hasMore: boolean }

export async function syncChanges(ctx: DomainContext, cursor: string | undefined): Promise<SyncSnapshot | SyncChanges> {
  // Read first: whatever changes while the snapshot is read has a later revision and is replayed.
  const current = await currentRevision(ctx)
  if (cursor === undefined || cursor === '') return snapshot(ctx, current)
  const from = /^\d{1,15}$/.test(cursor) ? Number(cursor) : Number.NaN
  if (!Number.isSafeInteger(from) || from > current) {
    throw new Problem({
      status: 410,
      title: 'Gone',
      detail: 'The sync cursor is not valid any more.',
      code: ERROR_CODES.syncCursorStale,
      remediation: 'Discard the local copy and take a full snapshot (call again without a cursor).',
    })
  }
  const rows = await ctx.tx
    .select({ revision: changeLog.revision, entity: changeLog.entity, entityId: changeLog.entityId, changeType: changeLog.changeType })
    .from(changeLog)
    .where(and(eq(changeLog.tenantId, ctx.actor.tenantId), gt(changeLog.revision, from)))
    .orderBy(asc(changeLog.revision))
    .limit(SYNC_PAGE_SIZE + 1)
  const page = rows.slice(0, SYNC_PAGE_SIZE)
  const idsOf = (entity: SyncedEntity) => [...new Set(page.filter((r) => r.entity === entity && r.changeType !== 'Deleted').map((r) => r.entityId))]
  const data = new Map<string, Project | Report | Item>()
  for (const p of await projectViews(ctx, idsOf('Project'))) data.set(p.id, p)
  for (const r of await reportViews(ctx, idsOf('Report'))) data.set(r.id, r)
  for (const i of await itemViews(ctx, idsOf('ReportItem'))) data.set(i.id, i)
  const last = page.at(-1)
  return {
    changes: page.map((r) => ({
      entity: r.entity as SyncedEntity,
      changeType: r.changeType as ChangeType,
      revision: r.revision,
      entityId: r.entityId,
      data: r.changeType === 'Deleted' ? null : (data.get(r.entityId) ?? null),
    })),
    cursor: cursorAt(ctx, last ? last.revision : from),
    hasMore: rows.length > SYNC_PAGE_SIZE,
  }
}

async function snapshot(ctx: DomainContext, revision: number): Promise<SyncSnapshot> {
  return {
    snapshot: { projects: await projectViews(ctx), reports: await reportViews(ctx), reportItems: await itemViews(ctx) },
    cursor: cursorAt(ctx, revision),
  }
}

function cursorAt(ctx: DomainContext, revision: number): SyncCursor {
  return { value: String(revision), expiresAtUtc: new Date(ctx.now.getTime() + SYNC_CURSOR_TTL_MS).toISOString() }
}

async function currentRevision(ctx: DomainContext): Promise<number> {
  const [row] = await ctx.tx.select({ revision: tenantRevisions.revision }).from(tenantRevisions).where(eq(tenantRevisions.tenantId, ctx.actor.tenantId))
  return row?.revision ?? 0
}

/** All the tenant's rows, or those with the given ids (an empty list: none). */
function scope(column: Parameters<typeof inArray>[0], ids: string[] | undefined): SQL | undefined {
  return ids === undefined ? undefined : inArray(column, ids)
}

async function projectViews(ctx: DomainContext, ids?: string[]): Promise<Project[]> {
  if (ids?.length === 0) return []
  const rows = await ctx.tx
    .select(projectColumns)
    .from(projects)
    .where(and(eq(projects.tenantId, ctx.actor.tenantId), scope(projects.id, ids)))
    .orderBy(asc(projects.createdAt), asc(projects.id))
  const people = await userRefs(ctx, rows.map((r) => r.createdBy))
  return rows.map((r) => toProject(r, people))
}

async function reportViews(ctx: DomainContext, ids?: string[]): Promise<Report[]> {
  if (ids?.length === 0) return []
  const rows = await selectReports(ctx)
    .where(and(eq(reports.tenantId, ctx.actor.tenantId), scope(reports.id, ids)))
    .orderBy(asc(reports.createdAt), asc(reports.id))
  return presentReports(ctx, rows)
}

/** Live items only: a deleted item is never served (its change reads Deleted, data null). */
async function itemViews(ctx: DomainContext, ids?: string[]): Promise<Item[]> {
  if (ids?.length === 0) return []
  const rows = await ctx.tx
    .select(itemColumns)
    .from(reportItems)
    .where(and(eq(reportItems.tenantId, ctx.actor.tenantId), isNull(reportItems.deletedAt), scope(reportItems.id, ids)))
    .orderBy(asc(reportItems.number))
  const items: Item[] = []
  for (let i = 0; i < rows.length; i += VIEW_BATCH) items.push(...(await toItems(ctx, rows.slice(i, i + VIEW_BATCH))))
  return items
}

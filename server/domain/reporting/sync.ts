import { and, asc, eq, gt, inArray, isNull, lte, ne, or, sql, type Column, type SQL } from 'drizzle-orm'
import { changeLog, projects, reportItems, reports, tenantRevisions } from '#server/db/schema-reporting'
import { Problem } from '#server/http/problem'
import { ensureSyncDevice } from '../auth/devices'
import { ERROR_CODES } from '~/lib/constants'
import type { Item, Project, Report } from '~/lib/reporting/types'
import { SYNCED_ENTITIES, type ChangeType, type SyncedEntity } from '../tenancy/change-log'
import type { DomainContext } from '../tenancy/context'
import { itemColumns, toItems } from './item-view'
import { projectColumns, toProject } from './projects'
import { presentReports, selectReports } from './reports'
import { changesEtag, decodeCursor, encodeCursor, type CursorState, type SnapshotPhase } from './sync-cursor'
import { userRefs } from '../tenancy/user-refs'

/**
 * Mobile sync (docs/site-reporting.md "Change log"). Without a cursor: the first page of a
 * snapshot at the tenant's current revision R; its continuation cursors page through projects,
 * reports and items (keyset by id) still at R, and the last page hands over a cursor at R. With a
 * revision cursor: the change log after it, a page at a time, one entry per entity. Cursors are
 * signed for their tenant and expire (sync-cursor.ts); anything else is stale (410) and the client
 * starts over with a snapshot.
 */

/** The mobile feed keeps closed items this long after they closed (docs/site-reporting.md "Mobile scope"). */
export const SYNC_MOBILE_CLOSED_DAYS = 14
const HOUR_MS = 60 * 60_000

/** At most this many entities (snapshot) or change-log rows (changes) per answer; `limit` may ask for fewer. */
export const SYNC_PAGE_SIZE = 1000
/** A cursor is good for a day; the client then takes a fresh snapshot (spec §7 "Sync"). */
export const SYNC_CURSOR_TTL_MS = 24 * 60 * 60_000
/** Rows turned into JSON per batch of lookups (keeps every IN list well under the parameter limit). */
const VIEW_BATCH = 1000

export type SyncCursor = { value: string; expiresAtUtc: string }
export type SyncSnapshot = { snapshot: { projects: Project[]; reports: Report[]; reportItems: Item[] }; cursor: SyncCursor; hasMore: boolean }
export type SyncChange = { entity: SyncedEntity; changeType: ChangeType; revision: number; entityId: string; data: Project | Report | Item | null }
export type SyncChanges = { changes: SyncChange[]; cursor: SyncCursor; hasMore: boolean }

export type SyncRequest = {
  /** `all`: the whole organisation (GET /api/sync/changes); `mobile`: what a phone on site needs (changes-mobile). */
  feed: 'all' | 'mobile'
  cursor: string | undefined
  /** Page size wanted, 1..SYNC_PAGE_SIZE (default SYNC_PAGE_SIZE). */
  limit?: number
  /** The cursor signing key (syncCursorKey). */
  key: Buffer
  /** The If-None-Match header of a changes request, if any. */
  ifNoneMatch?: string
  /** The X-Device-Id header, if any: a revoked device is refused. */
  deviceId?: string
}
/** A changes answer carries an ETag; a snapshot page does not. 304: the client's copy of the answer is current. */
export type SyncAnswer = { status: 200; body: SyncSnapshot | SyncChanges; etag?: string } | { status: 304; etag: string }

function stale(detail = 'The sync cursor is not valid any more.'): Problem {
  return new Problem({
    status: 410,
    title: 'Gone',
    detail,
    code: ERROR_CODES.syncCursorStale,
    remediation: 'Discard the local copy and take a full snapshot (call again without a cursor).',
  })
}

export async function syncChanges(ctx: DomainContext, request: SyncRequest): Promise<SyncAnswer> {
  const limit = Math.min(Math.max(1, Math.trunc(request.limit ?? SYNC_PAGE_SIZE)), SYNC_PAGE_SIZE)
  if (request.deviceId !== undefined) await ensureSyncDevice(ctx.tx, ctx.actor, request.deviceId, ctx.now)
  // Read first: whatever changes while a snapshot is read has a later revision and is replayed.
  const { revision: current, scopeRevision, compactedThrough } = await tenantRevision(ctx)
  const now = ctx.now.getTime()
  const mobile = request.feed === 'mobile'
  // The mobile scope's edge moves by whole hours, so an unchanged poll stays one answer for an hour.
  const cutoff = mobile ? Math.floor(now / HOUR_MS) * HOUR_MS - SYNC_MOBILE_CLOSED_DAYS * 24 * HOUR_MS : undefined
  if (request.cursor === undefined || request.cursor === '')
    return { status: 200, body: await snapshotPage(ctx, request.key, current, { phase: 'p', after: null }, limit, cutoff) }
  const state = decodeCursor(request.key, ctx.actor.tenantId, request.cursor)
  // A cursor of the other feed is no cursor here.
  if (!state || state.revision > current || (state.mobileCutoff !== undefined) !== mobile) throw stale()
  if (state.expiresAt <= now) throw stale('The sync cursor has expired.')
  // The change log after it was compacted away: the changes it needs are gone.
  if (state.revision < compactedThrough) throw stale('The sync cursor is older than the change log keeps.')
  // Archiving or unarchiving moved whole reports and items in or out of the mobile scope.
  if (mobile && scopeRevision > state.revision) throw stale('A project or report was archived or unarchived since this copy was taken: take a fresh snapshot.')
  if (state.snapshot) return { status: 200, body: await snapshotPage(ctx, request.key, state.revision, state.snapshot, limit, state.mobileCutoff) }

  // An idle client keeps its cursor until half its life is gone, so an unchanged poll is the same answer.
  const renew = state.expiresAt - now < SYNC_CURSOR_TTL_MS / 2
  const etag = changesEtag([ctx.actor.tenantId, request.cursor, limit, current, renew, cutoff ?? ''])
  if (request.ifNoneMatch !== undefined && request.ifNoneMatch.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) return { status: 304, etag }
  if (state.revision === current && cutoff === state.mobileCutoff) {
    return {
      status: 200,
      etag,
      body: { changes: [], cursor: renew ? cursorAt(ctx, request.key, current, undefined, cutoff) : present(request.cursor, state), hasMore: false },
    }
  }
  const window = state.mobileCutoff !== undefined && cutoff !== undefined ? { from: state.mobileCutoff, to: cutoff } : undefined
  return { status: 200, etag, body: await changesAfter(ctx, request.key, state.revision, limit, window) }
}

/**
 * Up to `limit` change-log rows after `from`, folded to one entry per entity at its last change in
 * the page. Mobile (`window`): an entity out of scope now reads Deleted, and once the log is read
 * to its end, items whose closing fell out of the window since the cursor's cutoff come as Deleted.
 */
async function changesAfter(ctx: DomainContext, key: Buffer, from: number, limit: number, window?: { from: number; to: number }): Promise<SyncChanges> {
  const scope = window === undefined ? undefined : mobileScope(window.to)
  const rows = await ctx.tx
    .select({ revision: changeLog.revision, entity: changeLog.entity, entityId: changeLog.entityId, changeType: changeLog.changeType })
    .from(changeLog)
    .where(and(eq(changeLog.tenantId, ctx.actor.tenantId), gt(changeLog.revision, from)))
    .orderBy(asc(changeLog.revision))
    .limit(limit + 1)
  const page = rows.slice(0, limit)
  const latest = new Map<string, (typeof page)[number]>()
  for (const row of page) {
    // Documents and folders are in the log for realtime; the cursor still moves past them.
    if (!(SYNCED_ENTITIES as readonly string[]).includes(row.entity)) continue
    latest.delete(row.entityId)
    latest.set(row.entityId, row)
  }
  const entries = [...latest.values()]
  // A Report's itemCounts derive from its items, and item changes do not log the report: each report
  // whose items changed in this page comes too (Updated, at its items' last revision), or the copy drifts.
  const itemEntries = entries.filter((r) => r.entity === 'ReportItem')
  if (itemEntries.length > 0) {
    const itemIds = itemEntries.map((r) => r.entityId)
    // Deleted items too (soft-deleted rows keep their report).
    const owners = await ctx.tx
      .select({ id: reportItems.id, reportId: reportItems.reportId })
      .from(reportItems)
      .where(and(eq(reportItems.tenantId, ctx.actor.tenantId), inArray(reportItems.id, itemIds)))
    const reportOf = new Map(owners.map((o) => [o.id, o.reportId]))
    for (const row of itemEntries) {
      const reportId = reportOf.get(row.entityId)
      const logged = reportId === undefined ? undefined : latest.get(reportId)
      if (reportId === undefined || (logged && logged.revision >= row.revision)) continue
      latest.delete(reportId)
      latest.set(reportId, {
        revision: row.revision,
        entity: 'Report',
        entityId: reportId,
        changeType: logged?.changeType === 'Deleted' ? 'Deleted' : 'Updated',
      })
    }
    entries.splice(0, entries.length, ...[...latest.values()].sort((a, b) => a.revision - b.revision))
  }
  const idsOf = (entity: SyncedEntity) => entries.filter((r) => r.entity === entity && r.changeType !== 'Deleted').map((r) => r.entityId)
  const data = new Map<string, Project | Report | Item>()
  for (const p of await projectViews(ctx, { ids: idsOf('Project') }, scope?.projects)) data.set(p.id, p)
  for (const r of await reportViews(ctx, { ids: idsOf('Report') }, scope?.reports)) data.set(r.id, r)
  for (const i of await itemViews(ctx, { ids: idsOf('ReportItem') }, scope?.items)) data.set(i.id, i)
  const last = page.at(-1)
  const revision = last ? last.revision : from
  const hasMore = rows.length > limit
  const changes: SyncChange[] = entries.map((r) => {
    const found = r.changeType === 'Deleted' ? null : (data.get(r.entityId) ?? null)
    // Gone by now (deleted after this page, or out of the mobile scope): it reads Deleted.
    const changeType = (found === null ? 'Deleted' : r.changeType) as ChangeType
    return { entity: r.entity as SyncedEntity, changeType, revision: r.revision, entityId: r.entityId, data: found }
  })
  if (window !== undefined && !hasMore && window.to > window.from) {
    const listed = new Set(entries.map((r) => r.entityId))
    for (const id of await closedBetween(ctx, window.from, window.to)) {
      if (!listed.has(id)) changes.push({ entity: 'ReportItem', changeType: 'Deleted', revision, entityId: id, data: null })
    }
  }
  // Until the leavers are sent (the last page), the cursor keeps its old cutoff.
  const cutoff = window === undefined ? undefined : hasMore ? window.from : window.to
  return { changes, cursor: cursorAt(ctx, key, revision, undefined, cutoff), hasMore }
}

/** Live items closed in (from, to]: they left the mobile scope as its edge moved over them. */
async function closedBetween(ctx: DomainContext, from: number, to: number): Promise<string[]> {
  const rows = await ctx.tx
    .select({ id: reportItems.id })
    .from(reportItems)
    .where(
      and(
        eq(reportItems.tenantId, ctx.actor.tenantId),
        eq(reportItems.status, 'closed'),
        isNull(reportItems.deletedAt),
        gt(reportItems.closedAt, new Date(from)),
        lte(reportItems.closedAt, new Date(to)),
      ),
    )
  return rows.map((r) => r.id)
}

type Scope = { projects: SQL; reports: SQL; items: SQL }

/**
 * The mobile feed's scope (docs/site-reporting.md "Mobile scope"): active projects, their active
 * reports, and the live items of those reports that are not closed or closed after `cutoff`.
 * Conditions on the views' own queries (reports are selected joined to their project).
 */
function mobileScope(cutoff: number): Scope {
  // The item's report and its project are both active.
  const itemReportActive = sql`exists (select 1 from ${reports} r join ${projects} p on p.tenant_id = r.tenant_id and p.id = r.project_id
    where r.tenant_id = ${reportItems.tenantId} and r.id = ${reportItems.reportId} and r.status = 'active' and p.status = 'active')`
  return {
    projects: eq(projects.status, 'active'),
    reports: and(eq(reports.status, 'active'), eq(projects.status, 'active')) as SQL,
    items: and(or(ne(reportItems.status, 'closed'), gt(reportItems.closedAt, new Date(cutoff))), itemReportActive) as SQL,
  }
}

const NEXT_PHASE: Record<SnapshotPhase, SnapshotPhase | null> = { p: 'r', r: 'i', i: null }

/**
 * One page of the snapshot at `revision`: up to `limit` entities from the position, projects then
 * reports then live items, each in id order. Rows are read as they are now (possibly newer than
 * `revision`); the changes after `revision`, replayed afterwards, make the copy whole.
 */
async function snapshotPage(
  ctx: DomainContext,
  key: Buffer,
  revision: number,
  from: { phase: SnapshotPhase; after: string | null },
  limit: number,
  /** Mobile feed: its scope's cutoff, fixed for the whole snapshot. */
  cutoff: number | undefined,
): Promise<SyncSnapshot> {
  const scope = cutoff === undefined ? undefined : mobileScope(cutoff)
  const out: SyncSnapshot['snapshot'] = { projects: [], reports: [], reportItems: [] }
  let phase: SnapshotPhase | null = from.phase
  let after = from.after
  let room = limit
  while (phase !== null && room > 0) {
    const page = { after, limit: room + 1 }
    const found: { id: string }[] =
      phase === 'p'
        ? await projectViews(ctx, page, scope?.projects)
        : phase === 'r'
          ? await reportViews(ctx, page, scope?.reports)
          : await itemViews(ctx, page, scope?.items)
    const taken = found.slice(0, room)
    if (phase === 'p') out.projects.push(...(taken as Project[]))
    else if (phase === 'r') out.reports.push(...(taken as Report[]))
    else out.reportItems.push(...(taken as Item[]))
    room -= taken.length
    if (found.length > taken.length) {
      after = taken.at(-1)?.id ?? after
      break
    }
    phase = NEXT_PHASE[phase]
    after = null
  }
  if (phase === null) return { snapshot: out, cursor: cursorAt(ctx, key, revision, undefined, cutoff), hasMore: false }
  return { snapshot: out, cursor: cursorAt(ctx, key, revision, { phase, after }, cutoff), hasMore: true }
}

function cursorAt(ctx: DomainContext, key: Buffer, revision: number, snapshot?: CursorState['snapshot'], mobileCutoff?: number): SyncCursor {
  const state: CursorState = { revision, expiresAt: ctx.now.getTime() + SYNC_CURSOR_TTL_MS, snapshot, mobileCutoff }
  return present(encodeCursor(key, ctx.actor.tenantId, state), state)
}

function present(value: string, state: CursorState): SyncCursor {
  return { value, expiresAtUtc: new Date(state.expiresAt).toISOString() }
}

async function tenantRevision(ctx: DomainContext): Promise<{ revision: number; scopeRevision: number; compactedThrough: number }> {
  const [row] = await ctx.tx
    .select({ revision: tenantRevisions.revision, scopeRevision: tenantRevisions.scopeRevision, compactedThrough: tenantRevisions.compactedThrough })
    .from(tenantRevisions)
    .where(eq(tenantRevisions.tenantId, ctx.actor.tenantId))
  return row ?? { revision: 0, scopeRevision: 0, compactedThrough: 0 }
}

/** Which rows: those with the given ids, or a keyset page in id order (`after` exclusive). */
type Selection = { ids: string[] } | { after: string | null; limit: number }

function selected(column: Column, selection: Selection): SQL | undefined {
  if ('ids' in selection) return inArray(column, selection.ids)
  return selection.after === null ? undefined : gt(column, selection.after)
}

const pageLimit = (selection: Selection) => ('ids' in selection ? selection.ids.length : selection.limit)

async function projectViews(ctx: DomainContext, selection: Selection, scope?: SQL): Promise<Project[]> {
  if ('ids' in selection && selection.ids.length === 0) return []
  const rows = await ctx.tx
    .select(projectColumns)
    .from(projects)
    .where(and(eq(projects.tenantId, ctx.actor.tenantId), selected(projects.id, selection), scope))
    .orderBy(asc(projects.id))
    .limit(pageLimit(selection))
  const people = await userRefs(
    ctx,
    rows.map((r) => r.createdBy),
  )
  return rows.map((r) => toProject(r, people))
}

async function reportViews(ctx: DomainContext, selection: Selection, scope?: SQL): Promise<Report[]> {
  if ('ids' in selection && selection.ids.length === 0) return []
  const rows = await selectReports(ctx)
    .where(and(eq(reports.tenantId, ctx.actor.tenantId), selected(reports.id, selection), scope))
    .orderBy(asc(reports.id))
    .limit(pageLimit(selection))
  return presentReports(ctx, rows)
}

/** Live items only: a deleted item is never served (its change reads Deleted, data null). */
async function itemViews(ctx: DomainContext, selection: Selection, scope?: SQL): Promise<Item[]> {
  if ('ids' in selection && selection.ids.length === 0) return []
  const rows = await ctx.tx
    .select(itemColumns)
    .from(reportItems)
    .where(and(eq(reportItems.tenantId, ctx.actor.tenantId), isNull(reportItems.deletedAt), selected(reportItems.id, selection), scope))
    .orderBy(asc(reportItems.id))
    .limit(pageLimit(selection))
  const items: Item[] = []
  for (let i = 0; i < rows.length; i += VIEW_BATCH) items.push(...(await toItems(ctx, rows.slice(i, i + VIEW_BATCH))))
  return items
}

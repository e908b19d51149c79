import { randomUUID } from 'node:crypto'
import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm'
import { projects, reportItems, reports } from '#server/db/schema-reporting'
import { Problem, problems } from '#server/http/problem'
import type { ItemCounts, Page, Report } from '~/lib/reporting/types'
import { recordChange, recordScopeChange } from '../tenancy/change-log'
import type { DomainContext } from '../tenancy/context'
import { type Cursor, pageOf } from '../tenancy/paging'
import { ensure } from './permissions'
import { archivedConflict, findProjectRow, type ListStatus, notFound, olderThan, statusFilter } from './projects'
import { isUuid } from '~/lib/schemas/uuid'
import { refuseStaleWrite } from '../tenancy/edit-conflict'
import { refOf, userRefs, type UserRef } from '../tenancy/user-refs'

const columns = {
  id: reports.id,
  projectId: reports.projectId,
  projectTitle: projects.title,
  title: reports.title,
  status: reports.status,
  archivedAt: reports.archivedAt,
  createdBy: reports.createdBy,
  updatedBy: reports.updatedBy,
  createdAt: reports.createdAt,
  updatedAt: reports.updatedAt,
  revision: reports.revision,
}

type ReportRow = {
  id: string
  projectId: string
  projectTitle: string | null
  title: string | null
  status: string
  archivedAt: Date | null
  createdBy: string | null
  updatedBy: string | null
  createdAt: Date
  updatedAt: Date
  revision: number
}

const NO_ITEMS: ItemCounts = { open: 0, closeRequested: 0, closed: 0 }

function toReport(row: ReportRow, refs: Map<string, UserRef>, itemCounts: ItemCounts): Report {
  return {
    id: row.id,
    projectId: row.projectId,
    projectTitle: row.projectTitle,
    title: row.title,
    status: row.status === 'archived' ? 'archived' : 'active',
    archivedAtUtc: row.archivedAt?.toISOString() ?? null,
    createdBy: refOf(refs, row.createdBy),
    createdAtUtc: row.createdAt.toISOString(),
    updatedAtUtc: row.updatedAt.toISOString(),
    revision: row.revision,
    itemCounts,
  } satisfies Report
}

/** Reports with their creators and item counts: three queries for a whole page, whatever its size. */
export async function presentReports(ctx: DomainContext, rows: ReportRow[]): Promise<Report[]> {
  if (rows.length === 0) return []
  const [refs, counts] = await Promise.all([userRefs(ctx, rows.map((r) => r.createdBy)), itemCountsOf(ctx, rows.map((r) => r.id))])
  return rows.map((row) => toReport(row, refs, counts.get(row.id) ?? NO_ITEMS))
}

/** Items per status of each report, deleted items left out: one grouped query. */
async function itemCountsOf(ctx: DomainContext, reportIds: string[]): Promise<Map<string, ItemCounts>> {
  const rows = await ctx.tx
    .select({ reportId: reportItems.reportId, status: reportItems.status, count: sql<number>`count(*)`.mapWith(Number) })
    .from(reportItems)
    .where(and(eq(reportItems.tenantId, ctx.actor.tenantId), inArray(reportItems.reportId, reportIds), isNull(reportItems.deletedAt)))
    .groupBy(reportItems.reportId, reportItems.status)
  const counts = new Map<string, ItemCounts>()
  for (const row of rows) {
    const entry = counts.get(row.reportId) ?? { ...NO_ITEMS }
    if (row.status === 'open') entry.open = row.count
    else if (row.status === 'close_requested') entry.closeRequested = row.count
    else if (row.status === 'closed') entry.closed = row.count
    counts.set(row.reportId, entry)
  }
  return counts
}

export function selectReports(ctx: DomainContext) {
  return ctx.tx
    .select(columns)
    .from(reports)
    .innerJoin(projects, and(eq(projects.tenantId, reports.tenantId), eq(projects.id, reports.projectId)))
}

async function findReportRow(ctx: DomainContext, id: string, lock?: 'update'): Promise<ReportRow | undefined> {
  if (!isUuid(id)) return undefined
  const query = selectReports(ctx).where(and(eq(reports.tenantId, ctx.actor.tenantId), eq(reports.id, id)))
  const [row] = lock ? await query.for(lock, { of: reports }) : await query
  return row
}

async function requireReportRow(ctx: DomainContext, id: string, lock?: 'update'): Promise<ReportRow> {
  const row = await findReportRow(ctx, id, lock)
  if (!row) throw notFound()
  return row
}

async function presentOne(ctx: DomainContext, row: ReportRow): Promise<Report> {
  const [report] = await presentReports(ctx, [row])
  if (!report) throw new Error('report not presented')
  return report
}

export type ReportListQuery = { projectId: string | undefined; limit: number; after: Cursor | undefined; status: ListStatus }

/** Newest first. A projectId of no project of this tenant simply matches no report. */
export async function listReports(ctx: DomainContext, query: ReportListQuery): Promise<Page<Report>> {
  const rows = await selectReports(ctx)
    .where(
      and(
        eq(reports.tenantId, ctx.actor.tenantId),
        query.projectId === undefined ? undefined : eq(reports.projectId, query.projectId),
        statusFilter(reports.status, query.status),
        olderThan(query.after, reports.createdAt, reports.id),
      ),
    )
    .orderBy(desc(reports.createdAt), desc(reports.id))
    .limit(query.limit + 1)
  const page = pageOf(rows, query.limit)
  return { items: await presentReports(ctx, page.rows), nextCursor: page.nextCursor }
}

export async function getReport(ctx: DomainContext, id: string): Promise<Report> {
  return presentOne(ctx, await requireReportRow(ctx, id))
}

/**
 * A report belongs to an active project of this tenant. The project row is share-locked, so it
 * cannot be archived between the check and the insert.
 */
export async function createReport(ctx: DomainContext, input: { projectId: string; title?: string | null | undefined }): Promise<Report> {
  ensure(ctx.actor, 'report.create')
  const project = await findProjectRow(ctx, input.projectId, 'share')
  if (!project) {
    throw new Problem(problems.badRequest('Some fields are not valid.', { projectId: ['Choose a project of this organisation.'] }))
  }
  if (project.status === 'archived') throw archivedConflict('This project is archived: it takes no new reports.')
  const id = randomUUID()
  const revision = await recordChange(ctx, 'Report', id, 'Created')
  await ctx.tx
    .insert(reports)
    .values({ tenantId: ctx.actor.tenantId, id, projectId: project.id, title: input.title ?? null, createdBy: ctx.actor.userId, revision, createdAt: ctx.now, updatedAt: ctx.now })
  return presentOne(ctx, await requireReportRow(ctx, id))
}

/** PATCH: an absent title stays; a patch that changes nothing records no change. */
export async function updateReport(ctx: DomainContext, id: string, patch: { title?: string | null | undefined; expectedRevision?: number | undefined }): Promise<Report> {
  const current = await requireReportRow(ctx, id, 'update')
  ensure(ctx.actor, 'report.rename', { createdBy: current.createdBy })
  await refuseStaleWrite(ctx, { ...current, what: 'report' }, patch.expectedRevision, () => presentOne(ctx, current))
  if (patch.title === undefined || patch.title === current.title) return presentOne(ctx, current)
  await writeReport(ctx, id, { title: patch.title })
  return presentOne(ctx, await requireReportRow(ctx, id))
}

/** Archiving an archived report (or unarchiving an active one) answers it unchanged. */
export async function setReportArchived(ctx: DomainContext, id: string, archived: boolean): Promise<Report> {
  const current = await requireReportRow(ctx, id, 'update')
  ensure(ctx.actor, 'report.archive', { createdBy: current.createdBy })
  if ((current.status === 'archived') === archived) return presentOne(ctx, current)
  await recordScopeChange(ctx, await writeReport(ctx, id, archived ? { status: 'archived', archivedAt: ctx.now } : { status: 'active', archivedAt: null }))
  return presentOne(ctx, await requireReportRow(ctx, id))
}

/** Returns the change's revision. */
async function writeReport(ctx: DomainContext, id: string, set: Partial<Pick<typeof reports.$inferInsert, 'title' | 'status' | 'archivedAt'>>): Promise<number> {
  const revision = await recordChange(ctx, 'Report', id, 'Updated')
  await ctx.tx
    .update(reports)
    .set({ ...set, revision, updatedBy: ctx.actor.userId, updatedAt: ctx.now })
    .where(and(eq(reports.tenantId, ctx.actor.tenantId), eq(reports.id, id)))
  return revision
}

import { and, count, eq, exists, lt, or, sql } from 'drizzle-orm'
import { transmittals, workflowTasks, workflows } from '#server/db/schema-doc-control'
import { documentFolders, documents } from '#server/db/schema-documents'
import { actorEntries, visibleCondition } from '#server/domain/documents/access'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { DocControlSummary } from '~/lib/doc-control/types'
import { dueDateOf, registerOf } from './deliverables'
import { readableProject } from './parties'

/**
 * GET /api/projects/{projectId}/doc-control/summary: the document-control dashboard's figures.
 * Documents are counted as the caller may see them (the one permission rule); reviews and
 * transmittals are the project's. A review is overdue while active and past its due time, or
 * while one of its pending tasks is.
 */

/** The chart's span: enough for a long project's plan, bounded so the chart stays readable. */
export const CHART_MONTHS_MAX = 36

export async function docControlSummary(ctx: DomainContext, projectId: string): Promise<DocControlSummary> {
  await readableProject(ctx, projectId)
  const tenantId = ctx.actor.tenantId
  const entries = ctx.actor.roleKey === 'admin' ? [] : await actorEntries(ctx, projectId)
  const visible = visibleCondition(ctx.actor, entries, { documentId: sql`${documents.id}`, projectId: sql`${documents.projectId}`, folderPath: sql`${documentFolders.path}` })
  const counted = (column: typeof documents.status | typeof documents.state) =>
    ctx.tx
      .select({ key: column, n: count() })
      .from(documents)
      .leftJoin(documentFolders, and(eq(documentFolders.tenantId, documents.tenantId), eq(documentFolders.id, documents.folderId)))
      .where(and(eq(documents.tenantId, tenantId), eq(documents.projectId, projectId), visible))
      .groupBy(column)
      .orderBy(column)
  const overdueTask = ctx.tx
    .select({ one: sql`1` })
    .from(workflowTasks)
    .where(and(eq(workflowTasks.tenantId, workflows.tenantId), eq(workflowTasks.workflowId, workflows.id), eq(workflowTasks.status, 'pending'), lt(workflowTasks.dueAt, ctx.now)))
  const [byStatus, byState, [reviews], [awaiting], register] = await Promise.all([
    counted(documents.status),
    counted(documents.state),
    ctx.tx
      .select({
        active: count(),
        overdue: sql<number>`count(*) filter (where ${or(lt(workflows.dueAt, ctx.now), exists(overdueTask))})`.mapWith(Number),
      })
      .from(workflows)
      .where(and(eq(workflows.tenantId, tenantId), eq(workflows.projectId, projectId), eq(workflows.status, 'active'))),
    ctx.tx
      .select({ n: count() })
      .from(transmittals)
      .where(and(eq(transmittals.tenantId, tenantId), eq(transmittals.projectId, projectId), eq(transmittals.status, 'sent'))),
    registerOf(ctx, projectId),
  ])
  return {
    byStatus: byStatus.map((r) => ({ status: r.key, count: Number(r.n) })),
    byState: byState.map((r) => ({ state: r.key, count: Number(r.n) })),
    reviewsOverdue: reviews?.overdue ?? 0,
    reviewsActive: Number(reviews?.active ?? 0),
    transmittalsAwaitingAcknowledgement: Number(awaiting?.n ?? 0),
    issuedVsPlanned: issuedVsPlanned(
      register.map((d) => ({ due: dueDateOf(d.milestones), issued: d.firstIssuedAt?.slice(0, 10) ?? null })),
      ctx.now,
    ),
  }
}

/**
 * Cumulative planned and issued deliverables at the end of each month, from the first month
 * anything is planned or issued to the later of the last one and this month (the latest
 * CHART_MONTHS_MAX months of that when longer). Pure, for the unit of the chart.
 */
export function issuedVsPlanned(dates: ReadonlyArray<{ due: string | null; issued: string | null }>, now: Date): DocControlSummary['issuedVsPlanned'] {
  const months = dates
    .flatMap((d) => [d.due, d.issued])
    .filter((d): d is string => d !== null)
    .map((d) => d.slice(0, 7))
  if (months.length === 0) return []
  const thisMonth = now.toISOString().slice(0, 7)
  const first = months.reduce((a, b) => (b < a ? b : a))
  const last = [...months, thisMonth].reduce((a, b) => (b > a ? b : a))
  const span: string[] = []
  for (let month = first; month <= last; month = nextMonth(month)) span.push(month)
  return span.slice(-CHART_MONTHS_MAX).map((month) => ({
    month,
    planned: dates.filter((d) => d.due !== null && d.due.slice(0, 7) <= month).length,
    issued: dates.filter((d) => d.issued !== null && d.issued.slice(0, 7) <= month).length,
  }))
}

function nextMonth(month: string): string {
  const [year, m] = month.split('-').map(Number) as [number, number]
  return m === 12 ? `${year + 1}-01` : `${year}-${String(m + 1).padStart(2, '0')}`
}

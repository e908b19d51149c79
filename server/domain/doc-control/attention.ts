import { sql } from 'drizzle-orm'
import { rowsOf } from '#server/db/tenancy'
import type { DomainContext } from '#server/domain/tenancy/context'
import { Problem } from '#server/http/problem'
import type { DocControlAttention } from '~/lib/doc-control/types'
import { registerOf } from './deliverables'
import { readableProject } from './parties'

/**
 * What waits for the caller in document control, for the dashboard (docs/doc-control.md
 * "Dashboard figures"): review tasks waiting for their answer (as the inbox lists them),
 * transmittals sent to them not yet acknowledged, and the overdue deliverables (late or missing)
 * of the projects they can open, with the projects they are in. Counts only what the caller sees.
 */
export async function docControlAttention(ctx: DomainContext): Promise<DocControlAttention> {
  const me = ctx.actor.userId
  const tenant = ctx.actor.tenantId
  const [counts] = rowsOf<{ reviews: number; transmittals: number }>(
    await ctx.tx.execute(sql`select
      (select count(*)::int from workflow_tasks t join workflows w on w.tenant_id = t.tenant_id and w.id = t.workflow_id
        where t.tenant_id = ${tenant} and t.assignee_id = ${me} and t.status = 'pending' and w.status = 'active') as reviews,
      (select count(*)::int from transmittal_recipients r join transmittals tr on tr.tenant_id = r.tenant_id and tr.id = r.transmittal_id
        where r.tenant_id = ${tenant} and r.user_id = ${me} and tr.status <> 'draft' and r.status in ('sent', 'opened')) as transmittals`),
  )
  const candidates = rowsOf<{ project_id: string }>(
    await ctx.tx.execute(sql`select distinct d.project_id from deliverables d join projects p on p.tenant_id = d.tenant_id and p.id = d.project_id
      where d.tenant_id = ${tenant} and p.status = 'active' order by d.project_id`),
  )
  const projects: DocControlAttention['overdueDeliverables']['projects'] = []
  for (const { project_id: projectId } of candidates) {
    if (!(await canRead(ctx, projectId))) continue
    const overdue = (await registerOf(ctx, projectId)).filter((d) => d.flag === 'late' || d.flag === 'missing').length
    if (overdue > 0) projects.push({ projectId, count: overdue })
  }
  return {
    reviewsWaitingCount: Number(counts?.reviews ?? 0),
    transmittalsToAcknowledgeCount: Number(counts?.transmittals ?? 0),
    overdueDeliverables: { count: projects.reduce((sum, p) => sum + p.count, 0), projects },
  }
}

/** Whether the caller can open the project's registers (as GET …/deliverables decides): an unreachable one is left out, not an error. */
async function canRead(ctx: DomainContext, projectId: string): Promise<boolean> {
  try {
    await readableProject(ctx, projectId)
    return true
  } catch (error) {
    if (error instanceof Problem) return false
    throw error
  }
}

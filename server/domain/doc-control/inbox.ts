import { and, eq, inArray, sql } from 'drizzle-orm'
import { transmittalRecipients, transmittals, workflows, workflowTasks } from '#server/db/schema-doc-control'
import { rowsOf } from '#server/db/tenancy'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { InboxEntry, IssuePurpose, NumberedPage, RecipientStatus } from '~/lib/doc-control/types'
import { linksOf, tasksOf, templatesOf, workflowColumns, type WorkflowRow } from './workflow-store'
import { byNumber, callerActions, revisionShapes } from './workflow-views'
import { isOverdue } from './working-days'

/**
 * The inbox (docs/doc-control.md "Inbox"): the caller's review tasks waiting for their answer and
 * the transmittals sent to them (not drafts), newest first, paged with a total. One query pages
 * both kinds together; the page's entries are then read in full.
 */

export const INBOX_KINDS = ['all', 'tasks', 'transmittals'] as const
export type InboxKind = (typeof INBOX_KINDS)[number]

type Ref = { kind: 'task' | 'transmittal'; id: string; at: Date }

export async function inbox(ctx: DomainContext, query: { kind: InboxKind; page: number; pageSize: number }): Promise<NumberedPage<InboxEntry>> {
  const me = ctx.actor.userId
  const tenant = ctx.actor.tenantId
  const tasks = sql`select 'task' as kind, t.id, t.created_at as at from workflow_tasks t
    join workflows w on w.tenant_id = t.tenant_id and w.id = t.workflow_id
    where t.tenant_id = ${tenant} and t.assignee_id = ${me} and t.status = 'pending' and w.status = 'active'`
  const received = sql`select 'transmittal' as kind, r.id, coalesce(tr.sent_at, tr.created_at) as at from transmittal_recipients r
    join transmittals tr on tr.tenant_id = r.tenant_id and tr.id = r.transmittal_id
    where r.tenant_id = ${tenant} and r.user_id = ${me} and tr.status <> 'draft'`
  const union = query.kind === 'tasks' ? tasks : query.kind === 'transmittals' ? received : sql`${tasks} union all ${received}`
  const [counted] = rowsOf<{ n: number }>(await ctx.tx.execute(sql`select count(*)::int as n from (${union}) x`))
  const refs = rowsOf<{ kind: Ref['kind']; id: string; at: Date | string }>(
    await ctx.tx.execute(sql`select kind, id, at from (${union}) x order by at desc, id desc limit ${query.pageSize} offset ${(query.page - 1) * query.pageSize}`),
  ).map((r): Ref => ({ kind: r.kind, id: r.id, at: new Date(r.at) }))
  const taskEntries = await taskEntriesOf(
    ctx,
    refs.filter((r) => r.kind === 'task').map((r) => r.id),
  )
  const transmittalEntries = await transmittalEntriesOf(
    ctx,
    refs.filter((r) => r.kind === 'transmittal').map((r) => r.id),
  )
  const items = refs.flatMap((r) => (r.kind === 'task' ? taskEntries.get(r.id) : transmittalEntries.get(r.id)) ?? [])
  return { items, total: Number(counted?.n ?? 0), page: query.page, pageSize: query.pageSize }
}

async function taskEntriesOf(ctx: DomainContext, taskIds: string[]): Promise<Map<string, InboxEntry>> {
  if (taskIds.length === 0) return new Map()
  const wanted = new Set(taskIds)
  const owners = await ctx.tx
    .selectDistinct({ workflowId: workflowTasks.workflowId })
    .from(workflowTasks)
    .where(and(eq(workflowTasks.tenantId, ctx.actor.tenantId), inArray(workflowTasks.id, taskIds)))
  const rows = (await ctx.tx
    .select(workflowColumns)
    .from(workflows)
    .where(
      and(
        eq(workflows.tenantId, ctx.actor.tenantId),
        inArray(
          workflows.id,
          owners.map((o) => o.workflowId),
        ),
      ),
    )) as WorkflowRow[]
  const ids = rows.map((r) => r.id)
  const tasks = await tasksOf(ctx, ids)
  const links = await linksOf(ctx, ids)
  const templates = await templatesOf(
    ctx,
    rows.map((r) => r.templateVersionId),
  )
  const shapes = await revisionShapes(
    ctx,
    links.filter((l) => l.current).map((l) => l.revisionId),
  )
  const entries = new Map<string, InboxEntry>()
  for (const task of tasks.filter((t) => wanted.has(t.id))) {
    const row = rows.find((r) => r.id === task.workflowId)
    const template = row && templates.get(row.templateVersionId)
    if (!row || !template) continue
    const revisions = byNumber(links.filter((l) => l.workflowId === row.id && l.current).flatMap((l) => shapes.get(l.revisionId) ?? []))
    const [first] = revisions
    const more = revisions.length - 1
    entries.set(task.id, {
      kind: 'task',
      at: task.createdAt.toISOString(),
      workflowId: row.id,
      taskId: task.id,
      projectId: row.projectId,
      title: first ? `${first.number} ${first.code} ${first.title}${more > 0 ? ` and ${more} more` : ''}` : template.template.name,
      step: template.steps[task.step]?.name ?? `Step ${task.step + 1}`,
      dueAt: task.dueAt.toISOString(),
      overdue: isOverdue(task.dueAt, ctx.now),
      allowedActions: callerActions(
        ctx,
        row,
        tasks.filter((t) => t.workflowId === row.id),
        false,
      ),
    })
  }
  return entries
}

async function transmittalEntriesOf(ctx: DomainContext, recipientIds: string[]): Promise<Map<string, InboxEntry>> {
  if (recipientIds.length === 0) return new Map()
  const rows = await ctx.tx
    .select({
      id: transmittalRecipients.id,
      status: transmittalRecipients.status,
      transmittalId: transmittals.id,
      projectId: transmittals.projectId,
      number: transmittals.number,
      subject: transmittals.subject,
      purpose: transmittals.purpose,
      responseDueDate: transmittals.responseDueDate,
      sentAt: transmittals.sentAt,
      createdAt: transmittals.createdAt,
    })
    .from(transmittalRecipients)
    .innerJoin(transmittals, and(eq(transmittals.tenantId, transmittalRecipients.tenantId), eq(transmittals.id, transmittalRecipients.transmittalId)))
    .where(and(eq(transmittalRecipients.tenantId, ctx.actor.tenantId), inArray(transmittalRecipients.id, recipientIds)))
  return new Map(
    rows.map((row) => [
      row.id,
      {
        kind: 'transmittal',
        at: (row.sentAt ?? row.createdAt).toISOString(),
        transmittalId: row.transmittalId,
        projectId: row.projectId,
        number: row.number,
        subject: row.subject,
        purpose: row.purpose as IssuePurpose,
        status: row.status as RecipientStatus,
        responseDueDate: row.responseDueDate,
      },
    ]),
  )
}

import { and, asc, eq, inArray, sql, type AnyColumn, type SQL } from 'drizzle-orm'
import { workflowEvents } from '#server/db/schema-doc-control'
import { documentRevisions, documents } from '#server/db/schema-documents'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { OutcomeKind, TaskStatus, Workflow, WorkflowAction, WorkflowEvent, WorkflowRevision, WorkflowSummary, WorkflowTask } from '~/lib/doc-control/types'
import { atLeast } from '~/lib/documents/rules'
import { peopleById } from './revisions'
import { callerLevels, reviewDocs } from './workflow-reviewers'
import { stepTasks, type RevisionLink, type TaskRow, type TemplateOfWorkflow, type WorkflowRow } from './workflow-store'
import { isOverdue } from './working-days'

/**
 * What a workflow answers (app/lib/doc-control/types.ts): its revisions, tasks and events, and the
 * actions the caller may take now, computed for each caller (docs/doc-control.md "Who may do what").
 */

/** Revisions under review read in document-number order, whatever order they were chosen in. */
export function byNumber<T extends Pick<WorkflowRevision, 'number'>>(revisions: T[]): T[] {
  return revisions.sort((a, b) => a.number.localeCompare(b.number))
}

/** The actions each status takes from someone; which of them the caller may take is `callerActions`. */
export const STATE_ACTIONS: Record<Workflow['status'], readonly WorkflowAction[]> = {
  active: ['approve', 'reject', 'comment', 'reassign', 'cancel'],
  returned: ['comment', 'cancel', 'resubmit'],
  approved: [],
  cancelled: [],
}

/**
 * The caller's actions now: approve and reject for a pending reviewer of the step under review;
 * comment for the starter and anyone who is or was a reviewer; reassign and cancel for the starter
 * or an admin; resubmit for the starter or anyone with edit on every document. Read-only members
 * take none.
 */
export function callerActions(ctx: DomainContext, row: WorkflowRow, tasks: readonly TaskRow[], editsEveryDocument: boolean): WorkflowAction[] {
  if (ctx.actor.roleKey === 'read-only') return []
  const me = ctx.actor.userId
  const starter = row.startedBy === me
  const admin = ctx.actor.roleKey === 'admin'
  const reviewer = tasks.some((t) => t.assigneeId === me)
  const pendingHere = stepTasks(tasks, row).some((t) => t.assigneeId === me && t.status === 'pending')
  const mine = new Set<WorkflowAction>()
  if (row.status === 'active') {
    if (pendingHere) mine.add('approve').add('reject')
    if (starter || reviewer) mine.add('comment')
    if (starter || admin) mine.add('reassign').add('cancel')
  }
  if (row.status === 'returned') {
    if (starter || reviewer) mine.add('comment')
    if (starter || admin) mine.add('cancel')
    if (starter || editsEveryDocument) mine.add('resubmit')
  }
  return STATE_ACTIONS[row.status].filter((action) => mine.has(action))
}

/** Whether the caller has edit on every document under review now (resubmit), for each workflow of one project. */
export async function editsAll(ctx: DomainContext, projectId: string, links: readonly RevisionLink[]): Promise<(workflowId: string) => boolean> {
  if (ctx.actor.roleKey === 'read-only') return () => false
  const current = links.filter((l) => l.current)
  const levels = await callerLevels(ctx, projectId, await reviewDocs(ctx, [...new Set(current.map((l) => l.documentId))]))
  return (workflowId) => current.filter((l) => l.workflowId === workflowId).every((l) => atLeast(levels.get(l.documentId) ?? 'none', 'edit'))
}

/**
 * The shapes of revisions by id, read without a permission check: for lists already filtered to
 * what the caller may see, and for the reminder job. A superseded revision reads Archived, the
 * current one its document's state (as revisionsFor answers).
 */
export async function revisionShapes(ctx: DomainContext, revisionIds: readonly string[]): Promise<Map<string, WorkflowRevision>> {
  if (revisionIds.length === 0) return new Map()
  const rows = await ctx.tx
    .select({
      revisionId: documentRevisions.id,
      documentId: documents.id,
      number: documents.number,
      title: documents.title,
      code: documentRevisions.code,
      status: documentRevisions.status,
      documentState: documents.state,
      currentRevisionId: documents.currentRevisionId,
      supersededAt: documentRevisions.supersededAt,
    })
    .from(documentRevisions)
    .innerJoin(documents, and(eq(documents.tenantId, documentRevisions.tenantId), eq(documents.id, documentRevisions.documentId)))
    .where(and(eq(documentRevisions.tenantId, ctx.actor.tenantId), inArray(documentRevisions.id, [...new Set(revisionIds)])))
  return new Map(
    rows.map((row) => [
      row.revisionId,
      {
        revisionId: row.revisionId,
        documentId: row.documentId,
        number: row.number,
        title: row.title,
        code: row.code,
        status: row.status,
        state: row.supersededAt ? 'Archived' : row.currentRevisionId === row.revisionId ? row.documentState : 'Shared',
      },
    ]),
  )
}

function taskView(task: TaskRow, people: Map<string, { displayName: string }>, now: Date): WorkflowTask {
  return {
    id: task.id,
    step: task.step,
    round: task.round,
    assignee: { id: task.assigneeId, displayName: people.get(task.assigneeId)?.displayName ?? 'Former member' },
    status: task.status as TaskStatus,
    outcome: task.outcome,
    comment: task.comment,
    dueAt: task.dueAt.toISOString(),
    overdue: task.status === 'pending' && isOverdue(task.dueAt, now),
    actedAt: task.actedAt?.toISOString() ?? null,
  }
}

function person(id: string | null, people: Map<string, { id: string; displayName: string }>): { id: string; displayName: string } | null {
  if (id === null) return null
  const found = people.get(id)
  return found ? { id: found.id, displayName: found.displayName } : null
}

function head(
  ctx: DomainContext,
  row: WorkflowRow,
  template: TemplateOfWorkflow,
  revisions: WorkflowRevision[],
  allowedActions: WorkflowAction[],
  people: Map<string, { id: string; displayName: string }>,
) {
  return {
    id: row.id,
    projectId: row.projectId,
    template: template.template,
    status: row.status,
    currentStep: row.currentStep,
    round: row.round,
    message: row.message,
    dueAt: row.dueAt.toISOString(),
    overdue: row.status === 'active' && isOverdue(row.dueAt, ctx.now),
    outcome: row.outcome,
    startedBy: person(row.startedBy, people),
    startedAt: row.startedAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
    revisions,
    allowedActions,
  }
}

/** GET /api/workflows/{id} and every action's answer. `revisions`: the current ones, already checked visible. */
export async function workflowView(
  ctx: DomainContext,
  row: WorkflowRow,
  template: TemplateOfWorkflow,
  revisions: WorkflowRevision[],
  tasks: readonly TaskRow[],
  allowedActions: WorkflowAction[],
): Promise<Workflow> {
  const events = await ctx.tx
    .select({
      id: workflowEvents.id,
      action: workflowEvents.action,
      actorId: workflowEvents.actorId,
      step: workflowEvents.step,
      outcome: workflowEvents.outcome,
      comment: workflowEvents.comment,
      revisionId: workflowEvents.revisionId,
      at: workflowEvents.at,
    })
    .from(workflowEvents)
    .where(and(eq(workflowEvents.tenantId, ctx.actor.tenantId), eq(workflowEvents.workflowId, row.id)))
    .orderBy(asc(workflowEvents.at), asc(workflowEvents.id))
  const people = await peopleById(ctx, [row.startedBy, ...tasks.map((t) => t.assigneeId), ...events.map((e) => e.actorId)])
  return {
    ...head(ctx, row, template, revisions, allowedActions, people),
    steps: template.steps,
    tasks: tasks.map((task) => taskView(task, people, ctx.now)),
    events: events.map((event): WorkflowEvent => ({
      id: event.id,
      action: event.action as WorkflowAction,
      actor: person(event.actorId, people),
      step: event.step,
      outcome: event.outcome as OutcomeKind | null,
      comment: event.comment,
      revisionId: event.revisionId,
      at: event.at.toISOString(),
    })),
  }
}

/** Rows of a list: each workflow's current revisions and who has yet to answer, the caller's actions computed per row. */
export async function summaryViews(
  ctx: DomainContext,
  rows: readonly WorkflowRow[],
  templates: Map<string, TemplateOfWorkflow>,
  links: readonly RevisionLink[],
  tasks: readonly TaskRow[],
): Promise<WorkflowSummary[]> {
  const shapes = await revisionShapes(
    ctx,
    links.filter((l) => l.current).map((l) => l.revisionId),
  )
  const people = await peopleById(ctx, [...rows.map((r) => r.startedBy), ...tasks.map((t) => t.assigneeId)])
  const editsByProject = new Map<string, (workflowId: string) => boolean>()
  for (const projectId of new Set(rows.filter((r) => r.status === 'returned').map((r) => r.projectId))) {
    editsByProject.set(projectId, await editsAll(ctx, projectId, links))
  }
  return rows.map((row) => {
    const template = templates.get(row.templateVersionId)
    if (!template) throw new Error('workflow without its template version')
    const own = tasks.filter((t) => t.workflowId === row.id)
    const revisions = byNumber(links.filter((l) => l.workflowId === row.id && l.current).flatMap((l) => shapes.get(l.revisionId) ?? []))
    const allowed = callerActions(ctx, row, own, editsByProject.get(row.projectId)?.(row.id) ?? false)
    const stepName = row.status === 'active' && row.currentStep !== null ? (template.steps[row.currentStep]?.name ?? null) : null
    const pendingReviewers = stepTasks(own, row)
      .filter((t) => t.status === 'pending' && row.status === 'active')
      .flatMap((t) => person(t.assigneeId, people) ?? [])
    return { ...head(ctx, row, template, revisions, allowed, people), stepName, pendingReviewers }
  })
}

/**
 * SQL: the workflow has no current revision whose document fails `visible` (access.ts
 * visibleCondition over `d.id`, `d.project_id` and `f.path`); undefined when every document is visible.
 */
export function everyDocumentVisible(workflowId: AnyColumn, visible: SQL | undefined): SQL | undefined {
  if (visible === undefined) return undefined
  return sql`not exists (
    select 1 from workflow_revisions wr
    join documents d on d.tenant_id = wr.tenant_id and d.id = wr.document_id
    left join document_folders f on f.tenant_id = d.tenant_id and f.id = d.folder_id
    where wr.workflow_id = ${workflowId} and wr.current and not ${visible})`
}

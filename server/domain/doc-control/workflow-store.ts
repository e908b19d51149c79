import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import { workflowEvents, workflowRevisions, workflows, workflowTasks, workflowTemplates, workflowTemplateVersions } from '#server/db/schema-doc-control'
import { recordAuditIn, type AuditAction } from '#server/domain/audit'
import { notFound } from '#server/domain/documents/places'
import { enqueueMail } from '#server/domain/mail'
import { notifyFrom } from '#server/domain/notifications/notifications'
import { wantsMail } from '#server/domain/settings/notification-preferences'
import { recordChange, type ChangeType } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import { isUuid } from '~/lib/schemas/uuid'
import type { OutcomeKind, WorkflowAction, WorkflowRevision, WorkflowStatus, WorkflowStepDefinition } from '~/lib/doc-control/types'
import { peopleById } from './revisions'
import { applySuitability, type Applied } from './rule-book-apply'
import type { OutsideLinks } from '#server/domain/transmittal-link-token'
import { dueAfterWorkingDays } from './working-days'

/**
 * The rows of running workflows (docs/doc-control.md "Workflow"): the workflow, the revisions under
 * review, one task per reviewer per step per round, and the events. Tasks of the steps still to
 * come are stored `waiting` when a round begins (the reviewers chosen at the start, or by a
 * reassignment, are kept that way) and become `pending`, with their due time, when their step
 * begins.
 */

/**
 * Where the mails' links point: the portal's public address (config.publicUrl), and the key that
 * signs outside contacts' links (a review's outcome may supersede a revision they received).
 */
export type Links = OutsideLinks

/** What the reminders need: the address alone. */
export type ReminderLinks = Pick<Links, 'publicUrl'>

export const workflowColumns = {
  id: workflows.id,
  projectId: workflows.projectId,
  templateVersionId: workflows.templateVersionId,
  status: workflows.status,
  currentStep: workflows.currentStep,
  round: workflows.round,
  message: workflows.message,
  dueAt: workflows.dueAt,
  outcome: workflows.outcome,
  startedBy: workflows.startedBy,
  startedAt: workflows.startedAt,
  completedAt: workflows.completedAt,
  revision: workflows.revision,
  createdAt: workflows.createdAt,
  updatedAt: workflows.updatedAt,
}

export type WorkflowRow = Omit<typeof workflows.$inferSelect, 'tenantId' | 'status' | 'outcome'> & { status: WorkflowStatus; outcome: OutcomeKind | null }

export type TaskStatusRow = 'waiting' | 'pending' | 'done' | 'reassigned' | 'closed'

export type TaskRow = {
  id: string
  workflowId: string
  step: number
  round: number
  assigneeId: string
  status: TaskStatusRow
  outcome: OutcomeKind | null
  comment: string | null
  dueAt: Date
  actedAt: Date | null
  createdAt: Date
}

export type RevisionLink = { workflowId: string; revisionId: string; documentId: string; round: number; current: boolean }

export type TemplateOfWorkflow = { template: { id: string; name: string; version: number }; steps: WorkflowStepDefinition[] }

export async function findWorkflowRow(ctx: DomainContext, workflowId: string, options: { lock?: boolean } = {}): Promise<WorkflowRow> {
  if (!isUuid(workflowId)) throw notFound()
  const query = ctx.tx
    .select(workflowColumns)
    .from(workflows)
    .where(and(eq(workflows.tenantId, ctx.actor.tenantId), eq(workflows.id, workflowId)))
    .limit(1)
  const [row] = options.lock ? await query.for('update') : await query
  if (!row) throw notFound()
  return row as WorkflowRow
}

/** The template versions of workflows, by version id (one query). */
export async function templatesOf(ctx: DomainContext, versionIds: readonly string[]): Promise<Map<string, TemplateOfWorkflow>> {
  if (versionIds.length === 0) return new Map()
  const rows = await ctx.tx
    .select({
      versionId: workflowTemplateVersions.id,
      templateId: workflowTemplates.id,
      name: workflowTemplates.name,
      version: workflowTemplateVersions.version,
      steps: workflowTemplateVersions.steps,
    })
    .from(workflowTemplateVersions)
    .innerJoin(workflowTemplates, and(eq(workflowTemplates.tenantId, workflowTemplateVersions.tenantId), eq(workflowTemplates.id, workflowTemplateVersions.templateId)))
    .where(and(eq(workflowTemplateVersions.tenantId, ctx.actor.tenantId), inArray(workflowTemplateVersions.id, [...new Set(versionIds)])))
  return new Map(rows.map((row) => [row.versionId, { template: { id: row.templateId, name: row.name, version: row.version }, steps: row.steps }]))
}

export async function tasksOf(ctx: DomainContext, workflowIds: readonly string[]): Promise<TaskRow[]> {
  if (workflowIds.length === 0) return []
  const rows = await ctx.tx
    .select({
      id: workflowTasks.id,
      workflowId: workflowTasks.workflowId,
      step: workflowTasks.step,
      round: workflowTasks.round,
      assigneeId: workflowTasks.assigneeId,
      status: workflowTasks.status,
      outcome: workflowTasks.outcome,
      comment: workflowTasks.comment,
      dueAt: workflowTasks.dueAt,
      actedAt: workflowTasks.actedAt,
      createdAt: workflowTasks.createdAt,
    })
    .from(workflowTasks)
    .where(and(eq(workflowTasks.tenantId, ctx.actor.tenantId), inArray(workflowTasks.workflowId, [...workflowIds])))
    .orderBy(asc(workflowTasks.round), asc(workflowTasks.step), asc(workflowTasks.createdAt), asc(workflowTasks.id))
  return rows as TaskRow[]
}

export async function linksOf(ctx: DomainContext, workflowIds: readonly string[]): Promise<RevisionLink[]> {
  if (workflowIds.length === 0) return []
  return ctx.tx
    .select({
      workflowId: workflowRevisions.workflowId,
      revisionId: workflowRevisions.revisionId,
      documentId: workflowRevisions.documentId,
      round: workflowRevisions.round,
      current: workflowRevisions.current,
    })
    .from(workflowRevisions)
    .where(and(eq(workflowRevisions.tenantId, ctx.actor.tenantId), inArray(workflowRevisions.workflowId, [...workflowIds])))
}

/** The tasks of the step under review in this round, in the order they were made. */
export function stepTasks(tasks: readonly TaskRow[], row: Pick<WorkflowRow, 'currentStep' | 'round'>): TaskRow[] {
  return tasks.filter((t) => t.step === row.currentStep && t.round === row.round)
}

/**
 * The reviewers of each step as last planned: for each step, the people of its tasks in the latest
 * round that had that step, less those who handed their task over (their replacement is there).
 */
export function planOf(tasks: readonly TaskRow[], stepCount: number): string[][] {
  return Array.from({ length: stepCount }, (_, step) => {
    const ofStep = tasks.filter((t) => t.step === step)
    const latest = Math.max(0, ...ofStep.map((t) => t.round))
    return [...new Set(ofStep.filter((t) => t.round === latest && t.status !== 'reassigned').map((t) => t.assigneeId))]
  })
}

/**
 * Appends an event. Its time is the action's, nudged a microsecond past the workflow's latest event
 * when the clock has not moved (one request writes several), so the history keeps its order.
 */
export async function addEvent(
  ctx: DomainContext,
  workflowId: string,
  event: { action: WorkflowAction; step: number | null; outcome?: OutcomeKind | null; comment?: string | null; revisionId?: string | null },
): Promise<void> {
  const latest = sql`(select max(${workflowEvents.at}) + interval '1 microsecond' from ${workflowEvents} where ${workflowEvents.tenantId} = ${ctx.actor.tenantId} and ${workflowEvents.workflowId} = ${workflowId})`
  await ctx.tx.insert(workflowEvents).values({
    tenantId: ctx.actor.tenantId,
    workflowId,
    action: event.action,
    actorId: ctx.actor.userId,
    step: event.step,
    outcome: event.outcome ?? null,
    comment: event.comment ?? null,
    revisionId: event.revisionId ?? null,
    at: sql`greatest(${ctx.now.toISOString()}::timestamptz, ${latest})`,
  })
}

/**
 * The tasks of a round from `fromStep` on, from the plan: all `waiting`, due when their step would
 * end if each took its full time (a projection, set again when the step begins).
 */
export async function insertRound(
  ctx: DomainContext,
  workflowId: string,
  round: number,
  fromStep: number,
  plan: readonly string[][],
  steps: readonly WorkflowStepDefinition[],
): Promise<void> {
  const values: Array<typeof workflowTasks.$inferInsert> = []
  let days = 0
  for (let step = fromStep; step < steps.length; step++) {
    days += steps[step]?.dueDays ?? 0
    const dueAt = await dueAfterWorkingDays(ctx, days)
    for (const assigneeId of plan[step] ?? []) values.push({ tenantId: ctx.actor.tenantId, workflowId, step, round, assigneeId, status: 'waiting', dueAt, createdAt: ctx.now })
  }
  if (values.length > 0) await ctx.tx.insert(workflowTasks).values(values)
}

/** A step begins: its waiting tasks become pending, due `dueDays` working days from now. Returns who now has a task. */
export async function beginStep(ctx: DomainContext, workflowId: string, round: number, step: number, definition: WorkflowStepDefinition): Promise<string[]> {
  const rows = await ctx.tx
    .update(workflowTasks)
    .set({ status: 'pending', dueAt: await dueAfterWorkingDays(ctx, definition.dueDays), createdAt: ctx.now })
    .where(
      and(
        eq(workflowTasks.tenantId, ctx.actor.tenantId),
        eq(workflowTasks.workflowId, workflowId),
        eq(workflowTasks.round, round),
        eq(workflowTasks.step, step),
        eq(workflowTasks.status, 'waiting'),
      ),
    )
    .returning({ assigneeId: workflowTasks.assigneeId })
  return rows.map((r) => r.assigneeId)
}

/** Closes the tasks nobody needs to answer any more (pending or waiting), of one step or of the whole workflow. */
export async function closeOpenTasks(ctx: DomainContext, workflowId: string, only?: { round: number; step: number }): Promise<void> {
  await ctx.tx
    .update(workflowTasks)
    .set({ status: 'closed' })
    .where(
      and(
        eq(workflowTasks.tenantId, ctx.actor.tenantId),
        eq(workflowTasks.workflowId, workflowId),
        inArray(workflowTasks.status, ['pending', 'waiting']),
        only ? and(eq(workflowTasks.round, only.round), eq(workflowTasks.step, only.step)) : undefined,
      ),
    )
}

/** Every change of a workflow: the change log (realtime), the row's revision and time, in the caller's transaction. */
export async function saveWorkflow(ctx: DomainContext, workflowId: string, set: Partial<typeof workflows.$inferInsert>, changeType: ChangeType = 'Updated'): Promise<void> {
  const revision = await recordChange(ctx, 'Workflow', workflowId, changeType)
  await ctx.tx
    .update(workflows)
    .set({ ...set, revision, updatedAt: ctx.now })
    .where(and(eq(workflows.tenantId, ctx.actor.tenantId), eq(workflows.id, workflowId)))
}

export async function auditWorkflow(
  ctx: DomainContext,
  workflowId: string,
  action: Extract<AuditAction, `doc-control.workflow.${string}`>,
  data: Record<string, unknown>,
): Promise<void> {
  await recordAuditIn(ctx.tx, { tenantId: ctx.actor.tenantId, actorUserId: ctx.actor.userId, action, targetType: 'Workflow', targetId: workflowId, data, at: ctx.now })
}

/**
 * Gives the revisions a review's suitability, through the rule book (rule-book-apply.ts): a
 * published suitability on a preliminary revision issues the next C revision. Answers, per
 * revision, the one that now carries it.
 */
export async function setRevisionStatus(
  ctx: DomainContext,
  links: ReadonlyArray<Pick<RevisionLink, 'revisionId' | 'documentId'>>,
  code: string,
  workflowId: string,
  mailLinks: Links,
): Promise<Applied> {
  return applySuitability(ctx, links, code, { workflowId }, mailLinks)
}

/** How a review is named in mail and in the inbox: its first document and revision, and how many more. */
export function reviewLabel(revisions: ReadonlyArray<Pick<WorkflowRevision, 'number' | 'code' | 'title'>>): string {
  const [first] = revisions
  if (!first) return 'a review'
  const more = revisions.length - 1
  return `${first.number} ${first.code}${more > 0 ? ` and ${more} more` : ''}`
}

export function reviewUrl(links: ReminderLinks, workflow: { id: string; projectId: string }): string {
  return `${links.publicUrl}${reviewPath(workflow)}`
}

/** The review's screen in the portal (an in-app notification's link). */
export function reviewPath(workflow: { id: string; projectId: string }): string {
  return `/doc-control/workflows/${workflow.id}?projectId=${workflow.projectId}`
}

function when(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

/**
 * `workflow-review`: the reviewers of a step that has just begun (through the outbox, with the
 * transaction), and their in-app notification (review assigned).
 */
export async function mailReviewers(
  ctx: DomainContext,
  links: Links,
  review: { id: string; projectId: string; message: string | null; templateName: string; stepName: string; revisions: WorkflowRevision[] },
  assigneeIds: readonly string[],
  dueAt: Date,
): Promise<void> {
  if (assigneeIds.length === 0) return
  const people = await peopleById(ctx, [...assigneeIds, ctx.actor.userId])
  const from = people.get(ctx.actor.userId)?.displayName ?? 'Someone'
  const label = reviewLabel(review.revisions)
  const revisions = review.revisions.map((r) => ({ number: r.number, code: r.code, status: r.status, title: r.title }))
  await notifyFrom(ctx, assigneeIds, { kind: 'review-assigned', title: `Review ${label}: ${review.stepName}`, link: reviewPath(review) })
  for (const id of assigneeIds) {
    const person = people.get(id)
    if (!person) continue
    if (!(await wantsMail(ctx.tx, ctx.actor.tenantId, id, 'reviewTask'))) continue
    await enqueueMail(ctx.tx, {
      tenantId: ctx.actor.tenantId,
      to: person.email,
      template: 'workflow-review',
      variables: {
        publicUrl: links.publicUrl,
        recipientName: person.displayName,
        requesterName: from,
        reviewLabel: label,
        stepName: review.stepName,
        workflowName: review.templateName,
        dueAt: when(dueAt),
        revisions,
        message: review.message,
        reviewUrl: reviewUrl(links, review),
      },
    })
  }
}

/** `workflow-due`: the day-before reminder of one task (the hourly job), and its in-app notification (review due). */
export async function mailReminder(
  ctx: DomainContext,
  links: ReminderLinks,
  review: { id: string; projectId: string; stepName: string; revisions: WorkflowRevision[] },
  person: { email: string; displayName: string; assigneeId?: string | null | undefined },
  dueAt: Date,
): Promise<void> {
  if (person.assigneeId) {
    await notifyFrom(ctx, [person.assigneeId], { kind: 'review-due', title: `Review due within a day: ${reviewLabel(review.revisions)} (${review.stepName})`, link: reviewPath(review) })
  }
  if (person.assigneeId && !(await wantsMail(ctx.tx, ctx.actor.tenantId, person.assigneeId, 'reviewTask'))) return
  await enqueueMail(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    to: person.email,
    template: 'workflow-due',
    variables: {
      publicUrl: links.publicUrl,
      recipientName: person.displayName,
      reviewLabel: reviewLabel(review.revisions),
      stepName: review.stepName,
      dueAt: when(dueAt),
      reviewUrl: reviewUrl(links, review),
    },
  })
}

import { and, eq } from 'drizzle-orm'
import { workflowRevisions, workflowTasks } from '#server/db/schema-doc-control'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { OutcomeKind, Workflow, WorkflowAction, WorkflowStepDefinition } from '~/lib/doc-control/types'
import { stateOfStatus } from '~/lib/documents/rules'
import { isApproval, OUTCOME_SEVERITY } from '~/lib/schemas/workflows'
import { peopleById, revisionsFor } from './revisions'
import type { Applied } from './rule-book-apply'
import { notYours, readOnlyRefused, unprocessable, wrongState } from './workflow-problems'
import { eligibleReviewers, reviewDocs } from './workflow-reviewers'
import {
  addEvent,
  auditWorkflow,
  beginStep,
  closeOpenTasks,
  insertRound,
  mailReviewers,
  planOf,
  saveWorkflow,
  setRevisionStatus,
  stepTasks,
  type Links,
  type TaskRow,
} from './workflow-store'
import { STATE_ACTIONS } from './workflow-views'
import { actionsOf, getWorkflow, loadWorkflow, lockDocuments, reviewableProblems, SHARED_FOR_REVIEW, type Loaded } from './workflows'
import { dueAfterWorkingDays } from './working-days'

/**
 * The actions on a running workflow (docs/doc-control.md "Workflow (review) states"): approve,
 * reject, comment, reassign, cancel, resubmit. Each locks the workflow, refuses a wrong state with
 * 409 and the caller's allowed actions, a wrong actor with 403 (read-only members always), does
 * its work, records the event, the change and the audit, and answers the workflow as it is now.
 */

/** The workflow locked for an action the caller may take now; otherwise 409 (the state takes no such action) or 403 (not theirs). */
async function forAction(ctx: DomainContext, workflowId: string, action: WorkflowAction): Promise<Loaded> {
  const loaded = await loadWorkflow(ctx, workflowId, { lock: true })
  if (ctx.actor.roleKey === 'read-only') throw readOnlyRefused()
  const allowed = await actionsOf(ctx, loaded)
  if (!STATE_ACTIONS[loaded.row.status].includes(action)) throw wrongState(action, loaded.row.status, allowed)
  if (!allowed.includes(action)) throw notYours(actorRule[action])
  return loaded
}

const actorRule: Record<WorkflowAction, string> = {
  start: 'Starting a review needs edit on every document.',
  approve: 'Only the reviewers of the current step approve it.',
  reject: 'Only the reviewers of the current step reject it.',
  comment: 'Only the starter and the reviewers comment on a review.',
  reassign: 'Only the starter or an administrator hands a task over.',
  cancel: 'Only the starter or an administrator cancels a review.',
  resubmit: 'Only the starter, or someone with edit on every document, resubmits.',
}

function currentDefinition(loaded: Loaded): { index: number; step: WorkflowStepDefinition } {
  const index = loaded.row.currentStep
  const step = index === null ? undefined : loaded.template.steps[index]
  if (index === null || !step) throw new Error('an active workflow without its current step')
  return { index, step }
}

async function audit(ctx: DomainContext, loaded: Loaded, action: WorkflowAction, data: Record<string, unknown> = {}): Promise<void> {
  await auditWorkflow(ctx, loaded.row.id, 'doc-control.workflow.acted', { action, step: loaded.row.currentStep, round: loaded.row.round, ...data })
}

function reviewOf(loaded: Loaded, stepName: string) {
  return { id: loaded.row.id, projectId: loaded.row.projectId, message: loaded.row.message, templateName: loaded.template.template.name, stepName, revisions: loaded.revisions }
}

/** The strictest of a parallel step's answers. */
function strictest(outcomes: readonly OutcomeKind[]): OutcomeKind {
  return outcomes.reduce((worst, o) => (OUTCOME_SEVERITY[o] > OUTCOME_SEVERITY[worst] ? o : worst), outcomes[0] ?? 'approved')
}

/** A step's result once it has one: serial on the first answer; parallel when all answered (strictest), or on the first approval with `any`. */
function stepResult(step: WorkflowStepDefinition, answer: OutcomeKind, here: readonly TaskRow[]): OutcomeKind | null {
  if (step.mode === 'serial') return answer
  if (step.consolidate === 'any' && isApproval(answer)) return answer
  if (here.some((t) => t.status === 'pending')) return null
  return strictest(here.filter((t) => t.status === 'done' && t.outcome !== null).map((t) => t.outcome as OutcomeKind))
}

/**
 * The caller answers their task at the current step; when that gives the step a result, the
 * workflow moves: to the next step, to approved (the outcome's code on every revision), back to the
 * author (returned), or back to an earlier step in a new round.
 */
async function answer(ctx: DomainContext, loaded: Loaded, action: 'approve' | 'reject', kind: OutcomeKind, comment: string | null, links: Links): Promise<void> {
  const { row, template, tasks } = loaded
  const { index, step } = currentDefinition(loaded)
  const mine = stepTasks(tasks, row).find((t) => t.assigneeId === ctx.actor.userId && t.status === 'pending')
  if (!mine) throw new Error('no pending task of the caller')
  await ctx.tx
    .update(workflowTasks)
    .set({ status: 'done', outcome: kind, comment, actedAt: ctx.now })
    .where(and(eq(workflowTasks.tenantId, ctx.actor.tenantId), eq(workflowTasks.id, mine.id)))
  const now = tasks.map((t): TaskRow => (t.id === mine.id ? { ...t, status: 'done', outcome: kind, comment, actedAt: ctx.now } : t))
  await addEvent(ctx, row.id, { action, step: index, outcome: kind, comment })
  const result = stepResult(
    step,
    kind,
    stepTasks(now, row).filter((t) => t.status !== 'reassigned'),
  )
  await audit(ctx, loaded, action, { outcome: kind, stepResult: result })
  if (result === null) return saveWorkflow(ctx, row.id, {})
  await closeOpenTasks(ctx, row.id, { round: row.round, step: index })
  const current = loaded.links.filter((l) => l.current)
  const definition = step.outcomes.find((o) => o.kind === result)

  if (isApproval(result)) {
    const next = template.steps[index + 1]
    if (!next) {
      if (!definition) throw new Error('an approval outcome the step does not define')
      const applied = await setRevisionStatus(ctx, current, definition.status, row.id, links)
      await followIssued(ctx, row.id, row.round, current, applied)
      return saveWorkflow(ctx, row.id, { status: 'approved', currentStep: null, outcome: result, completedAt: ctx.now })
    }
    const reviewers = await beginStep(ctx, row.id, row.round, index + 1, next)
    await saveWorkflow(ctx, row.id, { currentStep: index + 1 })
    return mailReviewers(ctx, links, reviewOf(loaded, next.name), reviewers, await dueAfterWorkingDays(ctx, next.dueDays))
  }

  await closeOpenTasks(ctx, row.id)
  if (step.onReject.to === 'author') {
    // Back to the author: the revisions stay shared with the step's code for revise/rejected, unlocked for a new revision.
    if (definition) await setRevisionStatus(ctx, current, definition.status, row.id, links)
    return saveWorkflow(ctx, row.id, { status: 'returned', currentStep: null, outcome: result })
  }
  const target = step.onReject.step
  const back = template.steps[target]
  if (!back) throw new Error('onReject names a step the template does not have')
  const round = row.round + 1
  await insertRound(ctx, row.id, round, target, planOf(now, template.steps.length), template.steps)
  const reviewers = await beginStep(ctx, row.id, round, target, back)
  await saveWorkflow(ctx, row.id, { round, currentStep: target })
  return mailReviewers(ctx, links, reviewOf(loaded, back.name), reviewers, await dueAfterWorkingDays(ctx, back.dueDays))
}

/**
 * A published outcome on a preliminary revision issued the next C revision (the rule book): the
 * review now holds the C revision as its current one, the reviewed P revision stays in its record.
 */
async function followIssued(ctx: DomainContext, workflowId: string, round: number, links: ReadonlyArray<{ revisionId: string; documentId: string }>, applied: Applied): Promise<void> {
  for (const link of links) {
    const issued = applied.get(link.revisionId)
    if (!issued || issued === link.revisionId) continue
    await ctx.tx
      .update(workflowRevisions)
      .set({ current: false })
      .where(and(eq(workflowRevisions.tenantId, ctx.actor.tenantId), eq(workflowRevisions.workflowId, workflowId), eq(workflowRevisions.revisionId, link.revisionId)))
    await ctx.tx.insert(workflowRevisions).values({ tenantId: ctx.actor.tenantId, workflowId, revisionId: issued, documentId: link.documentId, round, current: true })
  }
}

/** POST /api/workflows/{workflowId}/approve: one of the step's approval outcomes (its first when none is named). */
export async function approveWorkflow(
  ctx: DomainContext,
  workflowId: string,
  input: { outcome?: OutcomeKind | undefined; comment?: string | undefined },
  links: Links,
): Promise<Workflow> {
  const loaded = await forAction(ctx, workflowId, 'approve')
  const { step } = currentDefinition(loaded)
  const approvals = step.outcomes.filter((o) => isApproval(o.kind)).map((o) => o.kind)
  const kind = input.outcome ?? approvals[0]
  if (kind === undefined || !approvals.includes(kind))
    throw unprocessable('Choose one of the step’s approval outcomes.', { outcome: [`This step approves with: ${approvals.join(', ')}.`] })
  await answer(ctx, loaded, 'approve', kind, input.comment ?? null, links)
  return getWorkflow(ctx, workflowId)
}

/** POST /api/workflows/{workflowId}/reject: a reason, and one of the step's revise/rejected outcomes (its first when none is named). */
export async function rejectWorkflow(
  ctx: DomainContext,
  workflowId: string,
  input: { outcome?: OutcomeKind | undefined; reason?: string | undefined },
  links: Links,
): Promise<Workflow> {
  const loaded = await forAction(ctx, workflowId, 'reject')
  const { step } = currentDefinition(loaded)
  const defined = step.outcomes.filter((o) => !isApproval(o.kind)).map((o) => o.kind)
  // A step that lists no revise or rejected outcome can still be sent back; the revisions then keep their code.
  const rejections: OutcomeKind[] = defined.length > 0 ? defined : ['revise', 'rejected']
  const kind = input.outcome ?? rejections[0]
  const errors: Record<string, string[]> = {}
  if (!input.reason) errors.reason = ['Give the reason for sending it back.']
  if (kind === undefined || !rejections.includes(kind)) errors.outcome = [`This step sends back with: ${rejections.join(', ')}.`]
  if (Object.keys(errors).length > 0) throw unprocessable('The rejection needs a reason and one of the step’s outcomes.', errors)
  await answer(ctx, loaded, 'reject', kind as OutcomeKind, input.reason ?? null, links)
  return getWorkflow(ctx, workflowId)
}

/** POST /api/workflows/{workflowId}/comment: the workflow step comment (spec §3), on the review or one of its revisions. */
export async function commentWorkflow(ctx: DomainContext, workflowId: string, input: { comment: string; revisionId?: string | undefined }): Promise<Workflow> {
  const loaded = await forAction(ctx, workflowId, 'comment')
  if (input.revisionId !== undefined && !loaded.links.some((l) => l.revisionId === input.revisionId))
    throw unprocessable('Comment on a revision of this review.', { revisionId: ['This revision is not part of this review.'] })
  await addEvent(ctx, loaded.row.id, { action: 'comment', step: loaded.row.currentStep, comment: input.comment, revisionId: input.revisionId ?? null })
  await audit(ctx, loaded, 'comment', { revisionId: input.revisionId ?? null })
  await saveWorkflow(ctx, loaded.row.id, {})
  return getWorkflow(ctx, workflowId)
}

/**
 * POST /api/workflows/{workflowId}/reassign: a task still to be answered in this round (of the
 * current step, or a later step's planned one) goes to someone else who may review; a pending one
 * gets its full time again and its new reviewer a mail.
 */
export async function reassignTask(ctx: DomainContext, workflowId: string, input: { taskId: string; userId: string }, links: Links): Promise<Workflow> {
  const loaded = await forAction(ctx, workflowId, 'reassign')
  const { row, tasks, template } = loaded
  const task = tasks.find((t) => t.id === input.taskId && t.round === row.round && (t.status === 'pending' || t.status === 'waiting'))
  if (!task) throw unprocessable('Choose a task still to be answered in this review.', { taskId: ['This is not a task still to be answered in this review.'] })
  const step = template.steps[task.step]
  if (!step) throw new Error('a task of a step the template does not have')
  if (tasks.some((t) => t.step === task.step && t.round === task.round && t.status !== 'reassigned' && t.status !== 'closed' && t.assigneeId === input.userId))
    throw unprocessable('This person already reviews at this step.', { userId: ['This person already reviews at this step.'] })
  const docs = await reviewDocs(
    ctx,
    loaded.links.filter((l) => l.current).map((l) => l.documentId),
  )
  if (!(await eligibleReviewers(ctx, row.projectId, [input.userId], docs)).has(input.userId))
    throw unprocessable('This person cannot review.', { userId: ['Not an active member who may see every document under review (read-only members cannot review).'] })

  await ctx.tx
    .update(workflowTasks)
    .set({ status: 'reassigned', actedAt: ctx.now })
    .where(and(eq(workflowTasks.tenantId, ctx.actor.tenantId), eq(workflowTasks.id, task.id)))
  const dueAt = task.status === 'pending' ? await dueAfterWorkingDays(ctx, step.dueDays) : task.dueAt
  await ctx.tx
    .insert(workflowTasks)
    .values({ tenantId: ctx.actor.tenantId, workflowId: row.id, step: task.step, round: task.round, assigneeId: input.userId, status: task.status, dueAt, createdAt: ctx.now })
  const people = await peopleById(ctx, [task.assigneeId, input.userId])
  const name = (id: string) => people.get(id)?.displayName ?? 'a former member'
  await addEvent(ctx, row.id, { action: 'reassign', step: task.step, comment: `${name(task.assigneeId)} → ${name(input.userId)}` })
  await audit(ctx, loaded, 'reassign', { taskId: task.id, from: task.assigneeId, to: input.userId })
  await saveWorkflow(ctx, row.id, {})
  if (task.status === 'pending') await mailReviewers(ctx, links, reviewOf(loaded, step.name), [input.userId], dueAt)
  return getWorkflow(ctx, workflowId)
}

/** POST /api/workflows/{workflowId}/cancel: active or returned; every open task closes; the revisions keep their codes and are free again. */
export async function cancelWorkflow(ctx: DomainContext, workflowId: string, input: { reason?: string | undefined }): Promise<Workflow> {
  const loaded = await forAction(ctx, workflowId, 'cancel')
  await closeOpenTasks(ctx, loaded.row.id)
  await addEvent(ctx, loaded.row.id, { action: 'cancel', step: loaded.row.currentStep, comment: input.reason ?? null })
  await audit(ctx, loaded, 'cancel', { reason: input.reason ?? null })
  await saveWorkflow(ctx, loaded.row.id, { status: 'cancelled', currentStep: null, completedAt: ctx.now })
  return getWorkflow(ctx, workflowId)
}

/**
 * POST /api/workflows/{workflowId}/resubmit: after a return, new revisions (P02…) of the review's
 * documents replace theirs (documents not named keep theirs); a new round starts at the first step
 * with the reviewers last planned, due again from now.
 */
export async function resubmitWorkflow(ctx: DomainContext, workflowId: string, input: { revisionIds: string[]; message?: string | undefined }, links: Links): Promise<Workflow> {
  const loaded = await forAction(ctx, workflowId, 'resubmit')
  const { row, template } = loaded
  const revisions = await revisionsFor(ctx, row.projectId, input.revisionIds, 'edit')
  await lockDocuments(
    ctx,
    revisions.map((r) => r.documentId),
  )
  const currentByDocument = new Map(loaded.links.filter((l) => l.current).map((l) => [l.documentId, l]))
  const errors = reviewableProblems(revisions)
  const strangers = revisions.filter((r) => !currentByDocument.has(r.documentId))
  if (strangers.length > 0) errors.revisionIds = [...(errors.revisionIds ?? []), ...strangers.map((r) => `${r.number} is not a document of this review.`)]
  if (Object.keys(errors).length > 0) throw unprocessable('The review cannot be resubmitted with these revisions: see revisionIds.', errors)

  const round = row.round + 1
  for (const revision of revisions) {
    const old = currentByDocument.get(revision.documentId)
    if (!old || old.revisionId === revision.revisionId) continue
    await ctx.tx
      .update(workflowRevisions)
      .set({ current: false })
      .where(and(eq(workflowRevisions.tenantId, ctx.actor.tenantId), eq(workflowRevisions.workflowId, row.id), eq(workflowRevisions.revisionId, old.revisionId)))
    await ctx.tx
      .insert(workflowRevisions)
      .values({ tenantId: ctx.actor.tenantId, workflowId: row.id, revisionId: revision.revisionId, documentId: revision.documentId, round, current: true })
      .onConflictDoUpdate({ target: [workflowRevisions.tenantId, workflowRevisions.workflowId, workflowRevisions.revisionId], set: { current: true, round } })
  }
  await setRevisionStatus(
    ctx,
    revisions.filter((r) => stateOfStatus(r.status) === 'WIP'),
    SHARED_FOR_REVIEW,
    row.id,
    links,
  )
  const first = template.steps[0]
  if (!first) throw new Error('a template version without steps')
  await insertRound(ctx, row.id, round, 0, planOf(loaded.tasks, template.steps.length), template.steps)
  const reviewers = await beginStep(ctx, row.id, round, 0, first)
  const dueAt = await dueAfterWorkingDays(
    ctx,
    template.steps.reduce((sum, s) => sum + s.dueDays, 0),
  )
  await addEvent(ctx, row.id, { action: 'resubmit', step: 0, comment: input.message ?? null })
  await audit(ctx, loaded, 'resubmit', { revisionIds: revisions.map((r) => r.revisionId), round })
  await saveWorkflow(ctx, row.id, { status: 'active', round, currentStep: 0, outcome: null, dueAt })
  const fresh = await loadWorkflow(ctx, workflowId)
  await mailReviewers(ctx, links, { ...reviewOf(fresh, first.name), message: input.message ?? row.message }, reviewers, await dueAfterWorkingDays(ctx, first.dueDays))
  return getWorkflow(ctx, workflowId)
}

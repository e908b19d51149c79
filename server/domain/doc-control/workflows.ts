import { randomUUID } from 'node:crypto'
import { and, count, desc, eq, inArray, sql } from 'drizzle-orm'
import { workflowRevisions, workflows } from '#server/db/schema-doc-control'
import { documents } from '#server/db/schema-documents'
import { actorEntries, visibleCondition } from '#server/domain/documents/access'
import { ensureProjectActive, findDocument, findProject } from '#server/domain/documents/places'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { FieldErrors } from '#server/http/problem'
import type { NumberedPage, Workflow, WorkflowAction, WorkflowProposal, WorkflowRevision, WorkflowStatus, WorkflowSummary } from '~/lib/doc-control/types'
import { stateOfStatus } from '~/lib/documents/rules'
import { revisionsFor } from './revisions'
import { reviewStartEffect, SHARED_FOR_REVIEW } from '#server/domain/documents/rule-book'
import { startingVersion } from './templates'
import { readOnlyRefused, unprocessable } from './workflow-problems'
import { underReview } from '../documents/review-lock'
import { planReviewers, proposeSteps, reviewDocs } from './workflow-reviewers'
import {
  addEvent,
  auditWorkflow,
  beginStep,
  findWorkflowRow,
  insertRound,
  linksOf,
  mailReviewers,
  setRevisionStatus,
  tasksOf,
  templatesOf,
  workflowColumns,
  type Links,
  type RevisionLink,
  type TaskRow,
  type TemplateOfWorkflow,
  type WorkflowRow,
} from './workflow-store'
import { byNumber, callerActions, editsAll, everyDocumentVisible, revisionShapes, summaryViews, workflowView } from './workflow-views'
import { dayOf, dueAfterWorkingDays, endOfDay } from './working-days'

/**
 * Review workflows (docs/doc-control.md "Workflow"): starting one on revisions of a project, reading
 * one, a project's list, a document's history and the reviewers proposed for a start. The actions
 * on a running workflow are in workflow-actions.ts; its rows in workflow-store.ts.
 *
 * A workflow is visible to whoever may view every document under review (its current revisions);
 * to anyone else it is 404 like an unknown id, and lists leave it out.
 */

/** The suitability a work-in-progress revision is shared at when its review starts: the rule book's. */
export { SHARED_FOR_REVIEW } from '#server/domain/documents/rule-book'

/** Answers with at most this many reviews of one document (its history, newest first). */
const DOCUMENT_HISTORY_MAX = 200

export type Loaded = { row: WorkflowRow; links: RevisionLink[]; revisions: WorkflowRevision[]; template: TemplateOfWorkflow; tasks: TaskRow[] }

/** A workflow with everything an action or an answer needs; 404 unless the caller may view every document under review. */
export async function loadWorkflow(ctx: DomainContext, workflowId: string, options: { lock?: boolean } = {}): Promise<Loaded> {
  const row = await findWorkflowRow(ctx, workflowId, options)
  const links = await linksOf(ctx, [row.id])
  const revisions = byNumber(
    await revisionsFor(
      ctx,
      row.projectId,
      links.filter((l) => l.current).map((l) => l.revisionId),
      'view',
    ),
  )
  const template = (await templatesOf(ctx, [row.templateVersionId])).get(row.templateVersionId)
  if (!template) throw new Error('workflow without its template version')
  return { row, links, revisions, template, tasks: await tasksOf(ctx, [row.id]) }
}

/** The actions the caller may take on a loaded workflow now. */
export async function actionsOf(ctx: DomainContext, loaded: Loaded): Promise<WorkflowAction[]> {
  const edits = loaded.row.status === 'returned' ? (await editsAll(ctx, loaded.row.projectId, loaded.links))(loaded.row.id) : false
  return callerActions(ctx, loaded.row, loaded.tasks, edits)
}

/** GET /api/workflows/{workflowId}, and the answer of every action (read again after it). */
export async function getWorkflow(ctx: DomainContext, workflowId: string): Promise<Workflow> {
  const loaded = await loadWorkflow(ctx, workflowId)
  return workflowView(ctx, loaded.row, loaded.template, loaded.revisions, loaded.tasks, await actionsOf(ctx, loaded))
}

/** The documents of these revisions, locked: a revision being issued for one waits, and then sees the review (workflow-lock.ts). */
export async function lockDocuments(ctx: DomainContext, documentIds: readonly string[]): Promise<void> {
  if (documentIds.length === 0) return
  await ctx.tx
    .select({ id: documents.id })
    .from(documents)
    .where(and(eq(documents.tenantId, ctx.actor.tenantId), inArray(documents.id, [...documentIds])))
    .orderBy(documents.id)
    .for('update')
}

/**
 * Revisions a review can take: the current revision of a document that is not archived, not
 * already published, and (the rule book) not a work-in-progress sub-revision, which cannot be shared.
 */
export function reviewableProblems(revisions: readonly WorkflowRevision[], field = 'revisionIds'): FieldErrors {
  const problems = revisions.flatMap((r) => {
    if (r.state === 'Archived') return [`${r.number} ${r.code} is superseded or archived: review its current revision.`]
    if (r.state === 'Published') return [`${r.number} ${r.code} is already published.`]
    const effect = reviewStartEffect(r)
    return effect?.kind === 'refuse' ? [effect.message] : []
  })
  return problems.length > 0 ? { [field]: problems } : {}
}

type StartInput = { templateId: string; revisionIds: string[]; message?: string | undefined; dueDate?: string | undefined; reviewers?: Record<string, string[]> | undefined }

/**
 * POST /api/projects/{projectId}/workflows: `edit` on every document; each document in no other
 * active or returned review. Work-in-progress revisions are shared (S3); the first step's
 * reviewers get their tasks and a mail, the later steps' reviewers are planned (`waiting`).
 */
export async function startWorkflow(ctx: DomainContext, projectId: string, input: StartInput, links: Links): Promise<Workflow> {
  const { project } = await findProject(ctx, projectId)
  if (ctx.actor.roleKey === 'read-only') throw readOnlyRefused()
  ensureProjectActive(project)
  const version = await startingVersion(ctx, input.templateId)
  const revisions = await revisionsFor(ctx, projectId, input.revisionIds, 'edit')
  const documentIds = revisions.map((r) => r.documentId)
  await lockDocuments(ctx, documentIds)
  const errors = reviewableProblems(revisions)
  if (input.dueDate !== undefined && input.dueDate < dayOf(ctx.now)) errors.dueDate = ['The due date cannot be in the past.']
  if (Object.keys(errors).length > 0) throw unprocessable('The review cannot start: see each field.', errors)
  const busy = await ctx.tx
    .selectDistinct({ number: documents.number })
    .from(workflowRevisions)
    .innerJoin(workflows, and(eq(workflows.tenantId, workflowRevisions.tenantId), eq(workflows.id, workflowRevisions.workflowId)))
    .innerJoin(documents, and(eq(documents.tenantId, workflowRevisions.tenantId), eq(documents.id, workflowRevisions.documentId)))
    .where(
      and(
        eq(workflowRevisions.tenantId, ctx.actor.tenantId),
        inArray(workflowRevisions.documentId, documentIds),
        eq(workflowRevisions.current, true),
        inArray(workflows.status, ['active', 'returned']),
      ),
    )
  if (busy.length > 0) throw underReview(`Already under review: ${busy.map((b) => b.number).join(', ')}. A document is in one review at a time.`)

  const { steps } = version
  const plan = await planReviewers(ctx, projectId, steps, await reviewDocs(ctx, documentIds), input.reviewers)
  const dueAt =
    input.dueDate !== undefined
      ? endOfDay(input.dueDate)
      : await dueAfterWorkingDays(
          ctx,
          steps.reduce((sum, s) => sum + s.dueDays, 0),
        )
  const id = randomUUID()
  const revision = await recordChange(ctx, 'Workflow', id, 'Created')
  await ctx.tx.insert(workflows).values({
    tenantId: ctx.actor.tenantId,
    id,
    projectId,
    templateVersionId: version.versionId,
    status: 'active',
    currentStep: 0,
    round: 1,
    message: input.message ?? null,
    dueAt,
    startedBy: ctx.actor.userId,
    startedAt: ctx.now,
    revision,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  })
  await ctx.tx
    .insert(workflowRevisions)
    .values(revisions.map((r) => ({ tenantId: ctx.actor.tenantId, workflowId: id, revisionId: r.revisionId, documentId: r.documentId, round: 1, current: true })))
  const wip = revisions.filter((r) => stateOfStatus(r.status) === 'WIP')
  await setRevisionStatus(ctx, wip, SHARED_FOR_REVIEW, id, links)
  await insertRound(ctx, id, 1, 0, plan, steps)
  const first = steps[0]
  if (!first) throw new Error('a template version without steps')
  const reviewers = await beginStep(ctx, id, 1, 0, first)
  await addEvent(ctx, id, { action: 'start', step: 0, comment: input.message ?? null })
  await auditWorkflow(ctx, id, 'doc-control.workflow.started', {
    templateId: version.template.id,
    version: version.template.version,
    revisionIds: revisions.map((r) => r.revisionId),
    reviewers: plan,
    shared: wip.map((r) => r.revisionId),
  })
  const shapes = await revisionShapes(
    ctx,
    revisions.map((r) => r.revisionId),
  )
  await mailReviewers(
    ctx,
    links,
    { id, projectId, message: input.message ?? null, templateName: version.template.name, stepName: first.name, revisions: revisions.map((r) => shapes.get(r.revisionId) ?? r) },
    reviewers,
    await dueAfterWorkingDays(ctx, first.dueDays),
  )
  return getWorkflow(ctx, id)
}

/** The visibility rule of lists as SQL: every current document of the workflow is one the caller may view. */
async function visibleWorkflows(ctx: DomainContext, projectId: string) {
  const entries = ctx.actor.roleKey === 'admin' ? [] : await actorEntries(ctx, projectId)
  const visible = visibleCondition(ctx.actor, entries, { documentId: sql`d.id`, projectId: sql`d.project_id`, folderPath: sql`f.path` })
  return everyDocumentVisible(workflows.id, visible)
}

async function summariesOf(ctx: DomainContext, rows: WorkflowRow[]): Promise<WorkflowSummary[]> {
  const ids = rows.map((r) => r.id)
  return summaryViews(
    ctx,
    rows,
    await templatesOf(
      ctx,
      rows.map((r) => r.templateVersionId),
    ),
    await linksOf(ctx, ids),
    await tasksOf(ctx, ids),
  )
}

/** GET /api/projects/{projectId}/workflows: newest first, a page and the total. */
export async function listWorkflows(
  ctx: DomainContext,
  projectId: string,
  query: { status?: WorkflowStatus | undefined; page: number; pageSize: number },
): Promise<NumberedPage<WorkflowSummary>> {
  await findProject(ctx, projectId)
  const where = and(
    eq(workflows.tenantId, ctx.actor.tenantId),
    eq(workflows.projectId, projectId),
    query.status === undefined ? undefined : eq(workflows.status, query.status),
    await visibleWorkflows(ctx, projectId),
  )
  const [total] = await ctx.tx.select({ n: count() }).from(workflows).where(where)
  const rows = (await ctx.tx
    .select(workflowColumns)
    .from(workflows)
    .where(where)
    .orderBy(desc(workflows.startedAt), desc(workflows.id))
    .limit(query.pageSize)
    .offset((query.page - 1) * query.pageSize)) as WorkflowRow[]
  return { items: await summariesOf(ctx, rows), total: Number(total?.n ?? 0), page: query.page, pageSize: query.pageSize }
}

/** GET /api/documents/{documentId}/workflows: every review that had one of its revisions, newest first (its history). */
export async function documentWorkflows(ctx: DomainContext, documentId: string): Promise<{ items: WorkflowSummary[] }> {
  const { doc } = await findDocument(ctx, documentId)
  const rows = (await ctx.tx
    .select(workflowColumns)
    .from(workflows)
    .where(
      and(
        eq(workflows.tenantId, ctx.actor.tenantId),
        eq(workflows.projectId, doc.projectId),
        sql`exists (select 1 from ${workflowRevisions} where ${workflowRevisions.tenantId} = ${workflows.tenantId} and ${workflowRevisions.workflowId} = ${workflows.id} and ${workflowRevisions.documentId} = ${doc.id})`,
        await visibleWorkflows(ctx, doc.projectId),
      ),
    )
    .orderBy(desc(workflows.startedAt), desc(workflows.id))
    .limit(DOCUMENT_HISTORY_MAX)) as WorkflowRow[]
  return { items: await summariesOf(ctx, rows) }
}

/** GET /api/projects/{projectId}/workflows/proposal: each step's reviewers from the template's rules and the matrix (what a start would assign). */
export async function proposeWorkflow(ctx: DomainContext, projectId: string, templateId: string, revisionIds: string[]): Promise<WorkflowProposal> {
  await findProject(ctx, projectId)
  const version = await startingVersion(ctx, templateId)
  const revisions = await revisionsFor(ctx, projectId, revisionIds, 'view')
  const steps = await proposeSteps(
    ctx,
    projectId,
    version.steps,
    await reviewDocs(
      ctx,
      revisions.map((r) => r.documentId),
    ),
  )
  return { template: version.template, steps }
}

import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { approveWorkflow, cancelWorkflow, commentWorkflow, reassignTask, rejectWorkflow, resubmitWorkflow } from '#server/domain/doc-control/workflow-actions'
import type { Links } from '#server/domain/doc-control/workflow-store'
import { documentWorkflows, getWorkflow, listWorkflows, proposeWorkflow, startWorkflow } from '#server/domain/doc-control/workflows'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import type { BackendEnv } from '#server/http/env'
import { operation } from '#server/http/contract'
import { WorkflowPageSchema, WorkflowProposalSchema, WorkflowSchema, WorkflowSummarySchema } from '~/lib/schemas/doc-control-responses'
import { optional, wholeNumber } from '#server/http/query'
import { idempotent } from '#server/http/idempotency'
import { requireSession } from '#server/http/session'
import { WORKFLOW_STATUSES } from '~/lib/doc-control/types'
import { ApproveSchema, CancelSchema, CommentSchema, MAX_WORKFLOW_REVISIONS, ReassignSchema, RejectSchema, ResubmitSchema, StartWorkflowSchema } from '~/lib/schemas/workflows'

/** docs/doc-control.md "API": review workflows on document revisions, their actions, a project's list and a document's history. */

function run<T>(c: Context<BackendEnv>, work: (ctx: DomainContext, links: Links) => Promise<T>): Promise<T> {
  const session = requireSession(c)
  const { db, now, config } = c.get('deps')
  return asMember(db, session, now(), (ctx) => work(ctx, { publicUrl: config.publicUrl, linkSecret: config.sessionSecret }))
}

export const WORKFLOW_PAGE_SIZE = 20
const WORKFLOW_PAGE_SIZE_MAX = 100
const WORKFLOW_PAGE_MAX = 10_000

const ListQuery = z.object({
  status: optional(z.enum(WORKFLOW_STATUSES, { error: 'status is active, returned, approved or cancelled.' })),
  page: optional(wholeNumber('page', WORKFLOW_PAGE_MAX)).transform((v) => v ?? 1),
  pageSize: optional(wholeNumber('pageSize', WORKFLOW_PAGE_SIZE_MAX)).transform((v) => v ?? WORKFLOW_PAGE_SIZE),
})

const ProposalQuery = z.object({
  templateId: z.uuid({ error: 'templateId must be a workflow template id.' }),
  revisionIds: z
    .string({ error: 'revisionIds are revision ids separated by commas.' })
    .transform((v) =>
      v
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== ''),
    )
    .pipe(
      z
        .array(z.uuid({ error: 'Each of revisionIds must be a revision id.' }))
        .min(1, 'Choose at least one revision.')
        .max(MAX_WORKFLOW_REVISIONS, `At most ${MAX_WORKFLOW_REVISIONS} revisions.`),
    ),
})

const tag = 'Document control'
const acting = {
  200: { description: 'The workflow as it is now, with the caller’s allowedActions.', schema: WorkflowSchema },
  403: 'Not the caller’s to do (or a read-only member).',
  404: 'No such workflow, or one of its documents is hidden from the caller.',
  409: 'KR_WORKFLOW_STATE: the workflow’s state does not take this action; `allowed` lists what the caller may do now.',
}

export const workflowRoutes = new Hono<BackendEnv>()
  .get(
    '/api/projects/:projectId/workflows/proposal',
    operation({
      summary: 'Reviewers proposed for each step of a template on these revisions (rules and the responsibility matrix)',
      tag,
      access: 'session',
      query: ProposalQuery,
      responses: { 200: { description: 'Each step’s reviewers, and why a step has nobody.', schema: WorkflowProposalSchema }, 404: 'No such project, template or revision.', 409: 'The template is archived.' },
    }),
    async (c) => {
      const { templateId, revisionIds } = c.req.valid('query')
      return c.json(await run(c, (ctx) => proposeWorkflow(ctx, c.req.param('projectId'), templateId, revisionIds)))
    },
  )
  .post(
    '/api/projects/:projectId/workflows',
    operation({
      summary: 'Start a review of revisions with a template',
      tag,
      access: 'session',
      body: StartWorkflowSchema,
      idempotent: true,
      responses: {
        201: { description: 'The workflow, at its first step.', schema: WorkflowSchema },
        400: 'Invalid fields.',
        403: 'No edit right on a document, or a read-only member.',
        404: 'No such project, template or revision.',
        409: 'A document is already under review, or the template or project is archived.',
        422: 'A revision cannot be reviewed, a step has nobody to review it, or a chosen person cannot review.',
      },
    }),
    idempotent,
    async (c) => c.json(await run(c, (ctx, links) => startWorkflow(ctx, c.req.param('projectId'), c.req.valid('json'), links)), 201),
  )
  .get(
    '/api/projects/:projectId/workflows',
    operation({
      summary: 'A project’s reviews, newest first, a page and the total',
      tag,
      access: 'session',
      query: ListQuery,
      responses: { 200: { description: 'A page of workflows.', schema: WorkflowPageSchema }, 404: 'No such project.' },
    }),
    async (c) => c.json(await run(c, (ctx) => listWorkflows(ctx, c.req.param('projectId'), c.req.valid('query')))),
  )
  .get(
    '/api/documents/:documentId/workflows',
    operation({
      summary: 'A document’s reviews, newest first (its history)',
      tag,
      access: 'session',
      responses: { 200: { description: 'The document’s workflows.', schema: z.object({ items: z.array(WorkflowSummarySchema) }) }, 404: 'No such document.' },
    }),
    async (c) => c.json(await run(c, (ctx) => documentWorkflows(ctx, c.req.param('documentId')))),
  )
  .get(
    '/api/workflows/:workflowId',
    operation({
      summary: 'One review: steps, revisions, tasks, events and the caller’s allowed actions',
      tag,
      access: 'session',
      responses: { 200: { description: 'The workflow.', schema: WorkflowSchema }, 404: 'No such workflow.' },
    }),
    async (c) => c.json(await run(c, (ctx) => getWorkflow(ctx, c.req.param('workflowId')))),
  )
  .post(
    '/api/workflows/:workflowId/approve',
    operation({
      summary: 'Approve at the current step (a pending reviewer)',
      tag,
      access: 'session',
      body: ApproveSchema,
      idempotent: true,
      responses: { ...acting, 422: 'Not one of the step’s approval outcomes.' },
    }),
    idempotent,
    async (c) => c.json(await run(c, (ctx, links) => approveWorkflow(ctx, c.req.param('workflowId'), c.req.valid('json'), links))),
  )
  .post(
    '/api/workflows/:workflowId/reject',
    operation({
      summary: 'Reject or ask for a revision at the current step, with a reason (a pending reviewer)',
      tag,
      access: 'session',
      body: RejectSchema,
      idempotent: true,
      responses: { ...acting, 422: 'No reason, or not one of the step’s outcomes.' },
    }),
    idempotent,
    async (c) => c.json(await run(c, (ctx, links) => rejectWorkflow(ctx, c.req.param('workflowId'), c.req.valid('json'), links))),
  )
  .post(
    '/api/workflows/:workflowId/comment',
    operation({
      summary: 'The workflow step comment (spec §3), on the review or one of its revisions',
      tag,
      access: 'session',
      body: CommentSchema,
      idempotent: true,
      responses: { ...acting, 422: 'The revision is not part of the review.' },
    }),
    idempotent,
    async (c) => c.json(await run(c, (ctx) => commentWorkflow(ctx, c.req.param('workflowId'), c.req.valid('json')))),
  )
  .post(
    '/api/workflows/:workflowId/reassign',
    operation({
      summary: 'Hand a task still to be answered to someone else (the starter or an admin)',
      tag,
      access: 'session',
      body: ReassignSchema,
      idempotent: true,
      responses: { ...acting, 422: 'Not a task still to be answered, or the person cannot review.' },
    }),
    idempotent,
    async (c) => c.json(await run(c, (ctx, links) => reassignTask(ctx, c.req.param('workflowId'), c.req.valid('json'), links))),
  )
  .post(
    '/api/workflows/:workflowId/cancel',
    operation({ summary: 'Cancel a review (the starter or an admin)', tag, access: 'session', body: CancelSchema, idempotent: true, responses: acting }),
    idempotent,
    async (c) => c.json(await run(c, (ctx) => cancelWorkflow(ctx, c.req.param('workflowId'), c.req.valid('json')))),
  )
  .post(
    '/api/workflows/:workflowId/resubmit',
    operation({
      summary: 'Resubmit a returned review with new revisions of its documents: a new round from the first step',
      tag,
      access: 'session',
      body: ResubmitSchema,
      idempotent: true,
      responses: { ...acting, 422: 'A revision is not of the review’s documents, or cannot be reviewed.' },
    }),
    idempotent,
    async (c) => c.json(await run(c, (ctx, links) => resubmitWorkflow(ctx, c.req.param('workflowId'), c.req.valid('json'), links))),
  )

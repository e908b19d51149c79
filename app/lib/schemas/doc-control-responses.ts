import { z } from 'zod'
import { recordRevision } from './edit-conflict'
import { PurposeCheckSchema } from './rule-book'
import { UserContactSchema } from './reporting-responses'
import {
  DELIVERABLE_FLAGS,
  ISSUE_PURPOSES,
  OUTCOMES,
  PARTY_ROLES,
  RESPONSIBILITIES,
  TRANSMITTAL_STATUSES,
  WIZARD_STEPS,
  WORKFLOW_ACTIONS,
  WORKFLOW_STATUSES,
  type Deliverable,
  type DeliverableImport,
  type DeliverablePage,
  type DocControlSummary,
  type DocumentSet,
  type InboxEntry,
  type OutsideRecipient,
  type Party,
  type SharedTransmittal,
  type ResponsibilityMatrix,
  type Transmittal,
  type TransmittalPackage,
  type TransmittalRecipient,
  type Workflow,
  type WorkflowProposal,
  type WorkflowRevision,
  type WorkflowStepDefinition,
  type WorkflowSummary,
  type WorkflowTemplate,
} from '~/lib/doc-control/types'

/**
 * Document control's answers (docs/doc-control.md): parties, the responsibility matrix,
 * deliverables, workflows and their templates, sets, transmittals and their packages, the inbox
 * and the summary; published in /api/openapi.json as named components and checked against every
 * answer in the tests (schema incidents). They mirror app/lib/doc-control/types.ts (`satisfies`).
 */

const at = z.iso.datetime().describe('ISO 8601, UTC.')
const day = z.iso.date()
const count = z.number().int().min(0)
const person = z.object({ id: z.uuid(), displayName: z.string() })
const numbered = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), total: count, page: z.number().int().min(1), pageSize: z.number().int().min(1) })

// ---- Parties, matrix, deliverables ----

export const PartySchema = z
  .object({
    id: z.uuid(),
    projectId: z.uuid(),
    name: z.string(),
    code: z.string().nullable(),
    role: z.enum(PARTY_ROLES),
    parentId: z.uuid().nullable(),
    members: z.array(z.object({ userId: z.uuid(), displayName: z.string(), email: z.string(), lead: z.boolean() })),
    contacts: z.array(z.object({ id: z.uuid(), name: z.string(), company: z.string(), email: z.string() })),
    revision: recordRevision,
    createdAt: at,
    updatedAt: at,
  })
  .meta({ id: 'Party' }) satisfies z.ZodType<Party>

export const PartyListSchema = z.object({ items: z.array(PartySchema) })

export const ResponsibilityMatrixSchema = z
  .object({
    projectId: z.uuid(),
    entries: z.array(z.object({ discipline: z.string(), docType: z.string().nullable(), partyId: z.uuid(), responsibility: z.enum(RESPONSIBILITIES) })),
    disciplines: z.array(z.object({ code: z.string(), description: z.string() })),
    docTypes: z.array(z.object({ code: z.string(), description: z.string() })),
    revision: recordRevision,
  })
  .meta({ id: 'ResponsibilityMatrix' }) satisfies z.ZodType<ResponsibilityMatrix>

export const DeliverableSchema = z
  .object({
    id: z.uuid(),
    projectId: z.uuid(),
    number: z.string(),
    title: z.string(),
    partyId: z.uuid().nullable(),
    milestones: z.array(z.object({ name: z.string(), plannedDate: day })),
    documentId: z.uuid().nullable(),
    firstIssuedAt: at.nullable(),
    flag: z.enum(DELIVERABLE_FLAGS),
    revision: recordRevision,
    createdAt: at,
    updatedAt: at,
  })
  .meta({ id: 'Deliverable' }) satisfies z.ZodType<Deliverable>

export const DeliverablePageSchema = numbered(DeliverableSchema).extend({
  counts: z.object({ issued: count, 'on-track': count, late: count, missing: count }),
}) satisfies z.ZodType<DeliverablePage>

export const DeliverableImportSchema = z.object({
  created: count,
  updated: count,
  errors: z.array(z.object({ line: z.number().int(), message: z.string() })),
}) satisfies z.ZodType<DeliverableImport>

// ---- Workflows ----

const reviewerRule = z.discriminatedUnion('type', [
  z.object({ type: z.literal('user'), userId: z.uuid() }),
  z.object({ type: z.literal('role'), roleKey: z.string() }),
  z.object({ type: z.literal('party'), partyId: z.uuid() }),
  z.object({ type: z.literal('matrix') }),
])

export const WorkflowStepSchema = z
  .object({
    name: z.string(),
    mode: z.enum(['serial', 'parallel']),
    consolidate: z.enum(['strictest', 'any']),
    reviewers: z.array(reviewerRule),
    dueDays: z.number().int(),
    outcomes: z.array(z.object({ kind: z.enum(OUTCOMES), label: z.string(), status: z.string() })),
    onReject: z.union([z.object({ to: z.literal('author') }), z.object({ to: z.literal('step'), step: z.number().int() })]),
  })
  .meta({ id: 'WorkflowStep' }) satisfies z.ZodType<WorkflowStepDefinition>

export const WorkflowTemplateSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    version: z.number().int().min(1),
    steps: z.array(WorkflowStepSchema),
    archived: z.boolean(),
    revision: recordRevision,
    createdAt: at,
    updatedAt: at,
  })
  .meta({ id: 'WorkflowTemplate' }) satisfies z.ZodType<WorkflowTemplate>

export const WorkflowTemplateListSchema = z.object({ items: z.array(WorkflowTemplateSchema) })

export const WorkflowRevisionSchema = z
  .object({ revisionId: z.uuid(), documentId: z.uuid(), number: z.string(), title: z.string(), code: z.string(), status: z.string(), state: z.string() })
  .meta({ id: 'WorkflowRevision' }) satisfies z.ZodType<WorkflowRevision>

const workflowFields = {
  id: z.uuid(),
  projectId: z.uuid(),
  template: z.object({ id: z.uuid(), name: z.string(), version: z.number().int() }),
  status: z.enum(WORKFLOW_STATUSES),
  currentStep: z.number().int().nullable(),
  round: z.number().int(),
  message: z.string().nullable(),
  dueAt: at,
  overdue: z.boolean(),
  outcome: z.enum(OUTCOMES).nullable(),
  startedBy: person.nullable(),
  startedAt: at,
  completedAt: at.nullable(),
  revisions: z.array(WorkflowRevisionSchema),
  allowedActions: z.array(z.enum(WORKFLOW_ACTIONS)),
}

export const WorkflowSchema = z
  .object({
    ...workflowFields,
    steps: z.array(WorkflowStepSchema),
    tasks: z.array(
      z.object({
        id: z.uuid(),
        step: z.number().int(),
        round: z.number().int(),
        assignee: person,
        status: z.enum(['waiting', 'pending', 'done', 'reassigned', 'closed']),
        outcome: z.enum(OUTCOMES).nullable(),
        comment: z.string().nullable(),
        dueAt: at,
        overdue: z.boolean(),
        actedAt: at.nullable(),
      }),
    ),
    events: z.array(
      z.object({
        id: z.uuid(),
        action: z.enum(WORKFLOW_ACTIONS),
        actor: person.nullable(),
        step: z.number().int().nullable(),
        outcome: z.enum(OUTCOMES).nullable(),
        comment: z.string().nullable(),
        revisionId: z.uuid().nullable(),
        at,
      }),
    ),
  })
  .meta({ id: 'Workflow' }) satisfies z.ZodType<Workflow>

export const WorkflowSummarySchema = z
  .object({ ...workflowFields, stepName: z.string().nullable(), pendingReviewers: z.array(person) })
  .meta({ id: 'WorkflowSummary' }) satisfies z.ZodType<WorkflowSummary>

export const WorkflowPageSchema = numbered(WorkflowSummarySchema)

export const WorkflowProposalSchema = z.object({
  template: z.object({ id: z.uuid(), name: z.string(), version: z.number().int() }),
  steps: z.array(
    z.object({ step: z.number().int(), name: z.string(), reviewers: z.array(UserContactSchema), problem: z.string().nullable() }),
  ),
}) satisfies z.ZodType<WorkflowProposal>

// ---- Sets ----

export const DocumentSetSchema = z
  .object({
    id: z.uuid(),
    projectId: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    status: z.enum(['draft', 'published']),
    derivedFromId: z.uuid().nullable(),
    revisions: z.array(WorkflowRevisionSchema),
    published: z.object({ at, by: person.nullable(), message: z.string(), purpose: z.enum(ISSUE_PURPOSES) }).nullable(),
    revision: recordRevision,
    createdAt: at,
    updatedAt: at,
  })
  .meta({ id: 'Set' }) satisfies z.ZodType<DocumentSet>

export const DocumentSetPageSchema = numbered(DocumentSetSchema)

// ---- Transmittals ----

export const TransmittalRecipientSchema = z
  .object({
    id: z.uuid(),
    userId: z.uuid(),
    displayName: z.string(),
    email: z.string(),
    partyId: z.uuid().nullable(),
    status: z.enum(['pending', 'sent', 'opened', 'acknowledged', 'responded']),
    openedAt: at.nullable(),
    downloadedAt: at.nullable(),
    downloads: count,
    acknowledgedAt: at.nullable(),
    respondedAt: at.nullable(),
    response: z.string().nullable(),
  })
  .meta({ id: 'TransmittalRecipient' }) satisfies z.ZodType<TransmittalRecipient>

const recipientStatus = z.enum(['pending', 'sent', 'opened', 'acknowledged', 'responded'])

export const OutsideRecipientSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    company: z.string(),
    email: z.string(),
    partyId: z.uuid().nullable(),
    status: recipientStatus,
    expiresAt: at.nullable(),
    revokedAt: at.nullable(),
    openedAt: at.nullable(),
    downloadedAt: at.nullable(),
    views: count,
    downloads: count,
    acknowledgedAt: at.nullable(),
    respondedAt: at.nullable(),
    response: z.string().nullable(),
    supersededNotices: z.array(z.object({ revisionId: z.uuid(), at })),
  })
  .meta({ id: 'OutsideRecipient' }) satisfies z.ZodType<OutsideRecipient>

export const TransmittalPackageSchema = z
  .object({
    id: z.uuid(),
    status: z.enum(['queued', 'running', 'ready', 'failed']),
    percent: z.number().min(0).max(100),
    filesDone: count,
    filesTotal: count,
    bytesDone: count,
    bytesTotal: count,
    sizeBytes: count.nullable(),
    error: z.string().nullable(),
    downloadUrl: z.string().nullable(),
    startedAt: at,
    finishedAt: at.nullable(),
  })
  .meta({ id: 'TransmittalPackage' }) satisfies z.ZodType<TransmittalPackage>

export const TransmittalSchema = z
  .object({
    id: z.uuid(),
    projectId: z.uuid(),
    number: z.string(),
    subject: z.string(),
    purpose: z.enum(ISSUE_PURPOSES),
    message: z.string(),
    responseDueDate: day.nullable(),
    status: z.enum(TRANSMITTAL_STATUSES),
    sentAt: at.nullable(),
    sentBy: person.nullable(),
    createdBy: person.nullable(),
    revisions: z.array(WorkflowRevisionSchema),
    recipients: z.array(TransmittalRecipientSchema),
    outsideRecipients: z.array(OutsideRecipientSchema),
    mine: TransmittalRecipientSchema.nullable(),
    package: TransmittalPackageSchema.nullable(),
    wizardStep: z.enum(WIZARD_STEPS),
    purposeCheck: PurposeCheckSchema.nullable(),
    revision: recordRevision,
    createdAt: at,
    updatedAt: at,
  })
  .meta({ id: 'Transmittal' }) satisfies z.ZodType<Transmittal>

export const TransmittalPageSchema = numbered(TransmittalSchema)

export const SharedTransmittalSchema = z
  .object({
    number: z.string(),
    subject: z.string(),
    purpose: z.enum(ISSUE_PURPOSES),
    message: z.string(),
    responseDueDate: day.nullable(),
    status: z.enum(TRANSMITTAL_STATUSES),
    sentAt: at.nullable(),
    senderName: z.string().nullable(),
    organisationName: z.string(),
    projectTitle: z.string(),
    recipient: z.object({
      name: z.string(),
      company: z.string(),
      email: z.string(),
      status: recipientStatus,
      acknowledgedAt: at.nullable(),
      respondedAt: at.nullable(),
      response: z.string().nullable(),
      expiresAt: at,
    }),
    revisions: z.array(
      WorkflowRevisionSchema.extend({
        fileName: z.string(),
        sizeBytes: count,
        superseded: z.boolean(),
        supersededAt: at.nullable(),
        currentRevision: z.object({ code: z.string(), status: z.string(), issuedAt: at }).nullable(),
        downloadUrl: z.string(),
      }),
    ),
    package: z.object({ status: z.enum(['queued', 'running', 'ready', 'failed']), percent: z.number().int().min(0).max(100), downloadUrl: z.string().nullable() }).nullable(),
  })
  .meta({ id: 'SharedTransmittal' }) satisfies z.ZodType<SharedTransmittal>

export const TransmittalStatusSchema = z.object({ status: z.enum(TRANSMITTAL_STATUSES), recipients: z.array(TransmittalRecipientSchema) })

// ---- Inbox and summary ----

export const InboxEntrySchema = z
  .discriminatedUnion('kind', [
    z.object({
      kind: z.literal('task'),
      at,
      workflowId: z.uuid(),
      taskId: z.uuid(),
      projectId: z.uuid(),
      title: z.string(),
      step: z.string(),
      dueAt: at,
      overdue: z.boolean(),
      allowedActions: z.array(z.enum(WORKFLOW_ACTIONS)),
    }),
    z.object({
      kind: z.literal('transmittal'),
      at,
      transmittalId: z.uuid(),
      projectId: z.uuid(),
      number: z.string(),
      subject: z.string(),
      purpose: z.enum(ISSUE_PURPOSES),
      status: z.enum(['pending', 'sent', 'opened', 'acknowledged', 'responded']),
      responseDueDate: day.nullable(),
    }),
  ])
  .meta({ id: 'InboxEntry' }) satisfies z.ZodType<InboxEntry>

export const DocControlSummarySchema = z.object({
  byStatus: z.array(z.object({ status: z.string(), count })),
  byState: z.array(z.object({ state: z.string(), count })),
  reviewsOverdue: count,
  reviewsActive: count,
  transmittalsAwaitingAcknowledgement: count,
  issuedVsPlanned: z.array(z.object({ month: z.string(), planned: count, issued: count })),
}) satisfies z.ZodType<DocControlSummary>

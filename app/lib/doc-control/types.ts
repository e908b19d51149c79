/**
 * Document control (issue 12, docs/doc-control.md): the shapes the API answers and the screens
 * read. The values of each status are ours (spec §4 does not show them); docs/doc-control.md lists
 * them with their transitions.
 */

// ---- Parties, matrix, deliverables ----

/** ISO 19650-2: the appointing party, lead appointed parties, and their task teams. */
export const PARTY_ROLES = ['appointing', 'lead-appointed', 'task-team'] as const
export type PartyRole = (typeof PARTY_ROLES)[number]

export type PartyMember = { userId: string; displayName: string; email: string; lead: boolean }

/** Someone of another firm in a party (issue 32): no member of the organisation, no seat; transmittals reach them by a signed link. */
export type PartyContact = { id: string; name: string; company: string; email: string }

export type Party = {
  id: string
  projectId: string
  name: string
  /** The originator code of its documents (ARC, STR…), when it produces any. */
  code: string | null
  role: PartyRole
  /** A task team's lead appointed party. */
  parentId: string | null
  members: PartyMember[]
  /** Outside contacts: people of other firms, reached by transmittal links. */
  contacts: PartyContact[]
  /** Bumped by every change of the party or its people (expectedRevision). */
  revision: number
  createdAt: string
  updatedAt: string
}

export const RESPONSIBILITIES = ['produce', 'review'] as const
export type Responsibility = (typeof RESPONSIBILITIES)[number]

/** One cell of the responsibility matrix: for a discipline (and a document type, or any), a party produces or reviews. */
export type MatrixEntry = { discipline: string; docType: string | null; partyId: string; responsibility: Responsibility }

export type Milestone = { name: string; plannedDate: string }

export type Deliverable = {
  id: string
  projectId: string
  /** The planned container name (it matches the document once issued). */
  number: string
  title: string
  partyId: string | null
  milestones: Milestone[]
  /** What was actually issued: the matching document, and when a revision of it was first published or transmitted. */
  documentId: string | null
  firstIssuedAt: string | null
  /** on-track | late | missing | issued: see docs/doc-control.md. */
  flag: DeliverableFlag
  /** Bumped by every save (expectedRevision). */
  revision: number
  createdAt: string
  updatedAt: string
}
export type DeliverableFlag = 'issued' | 'on-track' | 'late' | 'missing'
export const DELIVERABLE_FLAGS = ['issued', 'on-track', 'late', 'missing'] as const satisfies readonly DeliverableFlag[]

/** GET /api/projects/{projectId}/deliverables: one page of the register (filtered by flag), and how many of each flag the whole register has. */
export type DeliverablePage = { items: Deliverable[]; total: number; page: number; pageSize: number; counts: Record<DeliverableFlag, number> }

/** POST …/deliverables/import: lines upserted by number; a line with problems is left out and named (line 1 is the header). */
export type DeliverableImport = { created: number; updated: number; errors: Array<{ line: number; message: string }> }

/** GET /api/projects/{projectId}/matrix: the entries, and the codes its rows and filter come from (the naming standard's Role and Type fields). */
export type ResponsibilityMatrix = {
  projectId: string
  entries: MatrixEntry[]
  disciplines: Array<{ code: string; description: string }>
  docTypes: Array<{ code: string; description: string }>
  /** The matrix's revision, bumped by every save of it (expectedRevision). */
  revision: number
}

// ---- Workflows ----

export const OUTCOMES = ['approved', 'approved-with-comments', 'revise', 'rejected'] as const
export type OutcomeKind = (typeof OUTCOMES)[number]

/** What a step may give: its kind, the label people read, and the suitability code it sets on the revisions. */
export type StepOutcome = { kind: OutcomeKind; label: string; status: string }

/** Who reviews at a step: people, everyone of a role, the people of a party, or the parties the matrix names as reviewers. */
export type ReviewerRule = { type: 'user'; userId: string } | { type: 'role'; roleKey: string } | { type: 'party'; partyId: string } | { type: 'matrix' }

export type WorkflowStepDefinition = {
  name: string
  /** serial: one reviewer's answer closes the step; parallel: every reviewer answers and the strictest outcome wins (or the first approval with `consolidate: 'any'`). */
  mode: 'serial' | 'parallel'
  consolidate: 'strictest' | 'any'
  reviewers: ReviewerRule[]
  /** Time allowed, in working days (Monday to Friday). */
  dueDays: number
  outcomes: StepOutcome[]
  /** On revise or reject: back to the author (the workflow waits for a resubmission), or to an earlier step (its index). */
  onReject: { to: 'author' } | { to: 'step'; step: number }
}

export type WorkflowTemplate = {
  id: string
  name: string
  description: string | null
  version: number
  steps: WorkflowStepDefinition[]
  archived: boolean
  /** The template's current version, whichever version this is: what a change sends as expectedRevision. */
  revision: number
  createdAt: string
  updatedAt: string
}

/** active → returned (to the author) → active again on resubmit; active → approved | cancelled; returned → cancelled. */
export const WORKFLOW_STATUSES = ['active', 'returned', 'approved', 'cancelled'] as const
export type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number]

export const WORKFLOW_ACTIONS = ['start', 'approve', 'reject', 'comment', 'reassign', 'cancel', 'resubmit'] as const
export type WorkflowAction = (typeof WORKFLOW_ACTIONS)[number]

/** waiting: a later step's reviewer, planned when the round began; pending from when its step begins. */
export type TaskStatus = 'waiting' | 'pending' | 'done' | 'reassigned' | 'closed'

export type WorkflowTask = {
  id: string
  step: number
  round: number
  assignee: { id: string; displayName: string }
  status: TaskStatus
  outcome: OutcomeKind | null
  comment: string | null
  dueAt: string
  overdue: boolean
  actedAt: string | null
}

export type WorkflowEvent = {
  id: string
  action: WorkflowAction
  actor: { id: string; displayName: string } | null
  step: number | null
  outcome: OutcomeKind | null
  comment: string | null
  revisionId: string | null
  at: string
}

export type WorkflowRevision = { revisionId: string; documentId: string; number: string; title: string; code: string; status: string; state: string }

export type Workflow = {
  id: string
  projectId: string
  template: { id: string; name: string; version: number }
  steps: WorkflowStepDefinition[]
  status: WorkflowStatus
  /** The step under review (index into steps); null once finished. */
  currentStep: number | null
  round: number
  message: string | null
  dueAt: string
  overdue: boolean
  outcome: OutcomeKind | null
  startedBy: { id: string; displayName: string } | null
  startedAt: string
  completedAt: string | null
  revisions: WorkflowRevision[]
  tasks: WorkflowTask[]
  events: WorkflowEvent[]
  /** What the caller may do now (409 answers name the allowed ones the same way). */
  allowedActions: WorkflowAction[]
}

/** A row of a project's or a document's list of reviews: no steps, tasks or events. */
export type WorkflowSummary = Omit<Workflow, 'steps' | 'tasks' | 'events'> & {
  /** The name of the step under review (null once finished or returned). */
  stepName: string | null
  /** Who has yet to answer at the step under review. */
  pendingReviewers: Array<{ id: string; displayName: string }>
}

/** GET /api/projects/{projectId}/workflows/proposal: each step's reviewers from the template's rules and the matrix. */
export type WorkflowProposal = {
  template: { id: string; name: string; version: number }
  steps: Array<{ step: number; name: string; reviewers: Array<{ id: string; displayName: string; email: string }>; problem: string | null }>
}

/** A page of a list answered with its total (as document search answers). */
export type NumberedPage<T> = { items: T[]; total: number; page: number; pageSize: number }

// ---- Sets ----

export const ISSUE_PURPOSES = ['for-information', 'for-review', 'for-construction', 'for-tender', 'for-record'] as const
export type IssuePurpose = (typeof ISSUE_PURPOSES)[number]

export type SetStatus = 'draft' | 'published'

export type DocumentSet = {
  id: string
  projectId: string
  name: string
  description: string | null
  status: SetStatus
  derivedFromId: string | null
  revisions: WorkflowRevision[]
  /** The set publish body (spec §3) once published. */
  published: { at: string; by: { id: string; displayName: string } | null; message: string; purpose: IssuePurpose } | null
  createdAt: string
  /** The tenant revision of its last change (expectedRevision of a change). */
  revision: number
  updatedAt: string
}

// ---- Transmittals ----

/** draft → sent → acknowledged (every recipient has) → responded (a response was asked and all have) → closed; sent | acknowledged | responded → closed by the sender. */
export const TRANSMITTAL_STATUSES = ['draft', 'sent', 'acknowledged', 'responded', 'closed'] as const
export type TransmittalStatus = (typeof TRANSMITTAL_STATUSES)[number]

/** Per recipient: sent → opened → acknowledged → responded; downloads counted beside. */
export type RecipientStatus = 'pending' | 'sent' | 'opened' | 'acknowledged' | 'responded'

export type TransmittalRecipient = {
  id: string
  userId: string
  displayName: string
  email: string
  /** The party it came through, when chosen as a party. */
  partyId: string | null
  status: RecipientStatus
  openedAt: string | null
  downloadedAt: string | null
  downloads: number
  acknowledgedAt: string | null
  respondedAt: string | null
  response: string | null
}

/**
 * An outside contact's entry on a transmittal (issue 32, decision 024): reached by a signed link
 * that expires (`expiresAt`) and can be revoked; every view and download through it is counted.
 */
export type OutsideRecipient = {
  id: string
  name: string
  company: string
  email: string
  partyId: string | null
  status: RecipientStatus
  expiresAt: string | null
  revokedAt: string | null
  openedAt: string | null
  downloadedAt: string | null
  views: number
  downloads: number
  acknowledgedAt: string | null
  respondedAt: string | null
  response: string | null
  /** The revisions of this transmittal the contact was told, through this link, have been superseded (and when). */
  supersededNotices: Array<{ revisionId: string; at: string }>
}

/** What an outside contact's link shows (GET /api/shared/transmittals/{token}): that transmittal alone, read-only. */
export type SharedTransmittal = {
  number: string
  subject: string
  purpose: IssuePurpose
  message: string
  responseDueDate: string | null
  status: TransmittalStatus
  sentAt: string | null
  senderName: string | null
  organisationName: string
  projectTitle: string
  recipient: { name: string; company: string; email: string; status: RecipientStatus; acknowledgedAt: string | null; respondedAt: string | null; response: string | null; expiresAt: string }
  /**
   * The revisions as sent. A superseded one names its document's current revision (`currentRevision`),
   * which the link does not reach: it was not sent with this transmittal.
   */
  revisions: Array<
    WorkflowRevision & {
      fileName: string
      sizeBytes: number
      superseded: boolean
      supersededAt: string | null
      currentRevision: { code: string; status: string; issuedAt: string } | null
      downloadUrl: string
    }
  >
  package: { status: PackageStatus; percent: number; downloadUrl: string | null } | null
}

/** The wizard's steps (/doc-control/wizard): where a draft was left, kept on the transmittal. */
export const WIZARD_STEPS = ['details', 'revisions', 'recipients', 'message', 'review'] as const
export type WizardStep = (typeof WIZARD_STEPS)[number]

export type Transmittal = {
  id: string
  projectId: string
  /** Numbered per project: RSAA-TRN-000001. */
  number: string
  subject: string
  purpose: IssuePurpose
  message: string
  responseDueDate: string | null
  status: TransmittalStatus
  sentAt: string | null
  sentBy: { id: string; displayName: string } | null
  createdBy: { id: string; displayName: string } | null
  revisions: WorkflowRevision[]
  recipients: TransmittalRecipient[]
  /** Outside contacts it was sent to by link (the sender's tracking; empty for anyone else). */
  outsideRecipients: OutsideRecipient[]
  /** The caller's own recipient entry, when the caller received it. */
  mine: TransmittalRecipient | null
  package: TransmittalPackage | null
  /** The wizard's step a draft was left at. */
  wizardStep: WizardStep
  /**
   * The rule book's purpose check when it was sent: a revision whose suitability did not fit the
   * purpose (e.g. S3 "For construction") was warned about, and the sender confirmed; null when all fitted.
   */
  purposeCheck: { warnings: string[]; confirmedBy: { id: string; displayName: string } | null; confirmedAtUtc: string | null } | null
  /** Bumped by every change: a draft's saves send it back as expectedRevision. */
  revision: number
  createdAt: string
  updatedAt: string
}

export type PackageStatus = 'queued' | 'running' | 'ready' | 'failed'

export type TransmittalPackage = {
  id: string
  status: PackageStatus
  percent: number
  filesDone: number
  filesTotal: number
  bytesDone: number
  bytesTotal: number
  sizeBytes: number | null
  error: string | null
  /** Where the ZIP downloads (Range supported) once ready. */
  downloadUrl: string | null
  startedAt: string
  finishedAt: string | null
}

// ---- Inbox and dashboard ----

export type InboxEntry =
  | { kind: 'task'; at: string; workflowId: string; taskId: string; projectId: string; title: string; step: string; dueAt: string; overdue: boolean; allowedActions: WorkflowAction[] }
  | { kind: 'transmittal'; at: string; transmittalId: string; projectId: string; number: string; subject: string; purpose: IssuePurpose; status: RecipientStatus; responseDueDate: string | null }

export type DocControlSummary = {
  byStatus: Array<{ status: string; count: number }>
  byState: Array<{ state: string; count: number }>
  reviewsOverdue: number
  reviewsActive: number
  transmittalsAwaitingAcknowledgement: number
  /** Cumulative issued vs planned deliverables per month, for the chart. */
  issuedVsPlanned: Array<{ month: string; planned: number; issued: number }>
}

/** GET /api/doc-control/attention: what waits for the caller in document control (the dashboard's figures). */
export type DocControlAttention = {
  reviewsWaitingCount: number
  transmittalsToAcknowledgeCount: number
  overdueDeliverables: { count: number; projects: Array<{ projectId: string; count: number }> }
}

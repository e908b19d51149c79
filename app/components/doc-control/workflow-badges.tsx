import { Badge, type BadgeTone } from '~/components/ui/badge'
import type { OutcomeKind, StepOutcome, TaskStatus, WorkflowAction, WorkflowStatus } from '~/lib/doc-control/types'
import { formatDateTime } from '~/lib/format'

/** How the review screens name a review's states, outcomes and actions; the words carry the meaning, the colour only repeats it. */

const STATUS: Record<WorkflowStatus, { label: string; tone: BadgeTone }> = {
  active: { label: 'In review', tone: 'info' },
  returned: { label: 'Returned to the author', tone: 'warning' },
  approved: { label: 'Approved', tone: 'success' },
  cancelled: { label: 'Cancelled', tone: 'neutral' },
}

export function WorkflowStatusBadge({ status }: { status: WorkflowStatus }) {
  return <Badge tone={STATUS[status].tone}>{STATUS[status].label}</Badge>
}

export function workflowStatusLabel(status: WorkflowStatus): string {
  return STATUS[status].label
}

const OUTCOME_WORDS: Record<OutcomeKind, string> = {
  approved: 'Approved',
  'approved-with-comments': 'Approved with comments',
  revise: 'Revise and resubmit',
  rejected: 'Rejected',
}

/** The template's own label for an outcome when the step has one, else our words for its kind. */
export function outcomeLabel(kind: OutcomeKind, outcomes?: readonly StepOutcome[]): string {
  return outcomes?.find((o) => o.kind === kind)?.label ?? OUTCOME_WORDS[kind]
}

const ACTION_WORDS: Record<WorkflowAction, string> = {
  start: 'started the review',
  approve: 'approved',
  reject: 'sent it back',
  comment: 'commented',
  reassign: 'handed a task over',
  cancel: 'cancelled the review',
  resubmit: 'resubmitted it',
}

export function actionWords(action: WorkflowAction): string {
  return ACTION_WORDS[action]
}

/** The actions by name, as a 409 answer and the page list them: "approve, comment". */
const ACTION_NAMES: Record<WorkflowAction, string> = {
  start: 'start',
  approve: 'approve',
  reject: 'reject',
  comment: 'comment',
  reassign: 'reassign a task',
  cancel: 'cancel',
  resubmit: 'resubmit',
}

export function allowedText(allowed: readonly WorkflowAction[]): string {
  if (allowed.length === 0) return 'There is nothing more for you to do on this review.'
  return `What you may do now: ${allowed.map((a) => ACTION_NAMES[a]).join(', ')}.`
}

const TASK_WORDS: Record<TaskStatus, string> = {
  waiting: 'Waiting for its step',
  pending: 'To answer',
  done: 'Answered',
  reassigned: 'Handed over',
  closed: 'Closed',
}

export function taskStatusLabel(status: TaskStatus): string {
  return TASK_WORDS[status]
}

/** "Due 22 Nov 2026, 17:00 UTC" (without the word under a "Due" heading), and an Overdue badge once that has passed while still open. */
export function DueText({ dueAt, overdue, locale, bare = false }: { dueAt: string; overdue: boolean; locale: string; bare?: boolean }) {
  return (
    <span className="inline-flex flex-wrap items-center gap-1.5">
      <span>
        {bare ? '' : 'Due '}
        {formatDateTime(dueAt, locale)}
      </span>
      {overdue ? <Badge tone="critical">Overdue</Badge> : null}
    </span>
  )
}

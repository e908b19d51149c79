import type { SubmissionResult } from '@conform-to/react'
import { Link } from 'react-router'
import { Badge } from '~/components/ui/badge'
import type { InboxEntry, RecipientStatus, Workflow } from '~/lib/doc-control/types'
import { formatDate, formatDateTime } from '~/lib/format'
import { PURPOSE_LABELS } from '~/lib/schemas/sets'
import { DueText } from './workflow-badges'
import { deferred, partsBeforeNavigation } from '~/components/ui/deferred'

// A row's answer forms hydrate after the rest of the screen (app/components/ui/deferred.tsx).
const loadApproveForm = async () => (await import('./workflow-action-forms')).ApproveForm
const ApproveForm = deferred(loadApproveForm, import.meta.env.SSR ? await loadApproveForm() : undefined)
const loadRejectForm = async () => (await import('./workflow-action-forms')).RejectForm
const RejectForm = deferred(loadRejectForm, import.meta.env.SSR ? await loadRejectForm() : undefined)
await partsBeforeNavigation(ApproveForm, RejectForm)

type TaskEntry = Extract<InboxEntry, { kind: 'task' }>
type TransmittalEntry = Extract<InboxEntry, { kind: 'transmittal' }>

/** The last answer of a task's form: which one (approve or reject) of which review. */
export type TaskAnswer = { intent: string; workflowId: string; result: SubmissionResult<string[]> | undefined } | undefined

/**
 * The inbox's entries, newest first: a review task to answer in place (approve or reject, each
 * folded until opened; it opens again when its answer came back with problems) or on its page, and
 * a transmittal received, to its page.
 */
export function InboxList({ entries, reviews, answer, locale }: { entries: readonly InboxEntry[]; reviews: Record<string, Workflow>; answer: TaskAnswer; locale: string }) {
  return (
    <ol aria-label="Inbox, newest first" className="flex flex-col gap-3">
      {entries.map((entry) =>
        entry.kind === 'task' ? (
          <TaskItem
            key={`task-${entry.taskId}`}
            entry={entry}
            review={reviews[entry.workflowId]}
            answer={answer?.workflowId === entry.workflowId ? answer : undefined}
            locale={locale}
          />
        ) : (
          <TransmittalItem key={`transmittal-${entry.transmittalId}`} entry={entry} locale={locale} />
        ),
      )}
    </ol>
  )
}

function reviewHref(entry: TaskEntry): string {
  return `/doc-control/workflows/${encodeURIComponent(entry.workflowId)}?${new URLSearchParams({ projectId: entry.projectId })}`
}

function TaskItem({ entry, review, answer, locale }: { entry: TaskEntry; review: Workflow | undefined; answer: TaskAnswer; locale: string }) {
  const step = review && review.currentStep !== null ? review.steps[review.currentStep] : undefined
  const can = new Set(entry.allowedActions)
  const name = `Review of ${entry.title}`
  return (
    <li aria-label={name} className="rounded-lg border border-border bg-surface p-4">
      <div className="flex flex-wrap items-center gap-2">
        <Badge tone="info">Review task</Badge>
        <h2 className="text-base font-semibold text-text">
          <Link to={reviewHref(entry)} className="text-primary-strong underline underline-offset-2">
            {name}
          </Link>
        </h2>
      </div>
      <dl className="mt-2 grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
        <dt className="text-muted">Step</dt>
        <dd>{entry.step}</dd>
        <dt className="text-muted">Due</dt>
        <dd>
          <DueText dueAt={entry.dueAt} overdue={entry.overdue} locale={locale} bare />
        </dd>
        <dt className="text-muted">Received</dt>
        <dd>{formatDateTime(entry.at, locale)}</dd>
      </dl>
      {step && (can.has('approve') || can.has('reject')) ? (
        <div className="mt-3 flex flex-col gap-3">
          {can.has('approve') ? (
            <details open={answer?.intent === 'approve' || undefined} className="rounded-md border border-border p-3">
              <summary className="cursor-pointer text-sm font-medium text-primary-strong">Approve…</summary>
              <div className="mt-3">
                <ApproveForm
                  workflowId={entry.workflowId}
                  withTarget
                  outcomes={step.outcomes}
                  label={`Approve ${entry.title}`}
                  lastResult={answer?.intent === 'approve' ? answer.result : undefined}
                />
              </div>
            </details>
          ) : null}
          {can.has('reject') ? (
            <details open={answer?.intent === 'reject' || undefined} className="rounded-md border border-border p-3">
              <summary className="cursor-pointer text-sm font-medium text-primary-strong">Reject…</summary>
              <div className="mt-3">
                <RejectForm
                  workflowId={entry.workflowId}
                  withTarget
                  outcomes={step.outcomes}
                  label={`Reject ${entry.title}`}
                  lastResult={answer?.intent === 'reject' ? answer.result : undefined}
                />
              </div>
            </details>
          ) : null}
        </div>
      ) : (
        <p className="mt-3 text-sm">
          <Link to={reviewHref(entry)} className="text-primary-strong underline underline-offset-2">
            Open the review to answer
          </Link>
        </p>
      )}
    </li>
  )
}

const RECIPIENT_WORDS: Record<RecipientStatus, string> = {
  pending: 'Not sent yet',
  sent: 'New',
  opened: 'Opened',
  acknowledged: 'Acknowledged',
  responded: 'Responded',
}

function TransmittalItem({ entry, locale }: { entry: TransmittalEntry; locale: string }) {
  const href = `/doc-control/transmittals/${encodeURIComponent(entry.transmittalId)}?${new URLSearchParams({ projectId: entry.projectId })}`
  const name = `${entry.number} ${entry.subject}`
  return (
    <li aria-label={`Transmittal ${name}`} className="rounded-lg border border-border bg-surface p-4">
      <div className="flex flex-wrap items-center gap-2">
        <Badge tone="neutral">Transmittal</Badge>
        <h2 className="text-base font-semibold text-text">
          <Link to={href} className="text-primary-strong underline underline-offset-2">
            <span className="font-mono">{entry.number}</span> {entry.subject}
          </Link>
        </h2>
        <Badge tone={entry.status === 'sent' ? 'info' : 'neutral'}>{RECIPIENT_WORDS[entry.status]}</Badge>
      </div>
      <dl className="mt-2 grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
        <dt className="text-muted">Purpose</dt>
        <dd>{PURPOSE_LABELS[entry.purpose]}</dd>
        {entry.responseDueDate ? (
          <>
            <dt className="text-muted">Response due</dt>
            <dd>{formatDate(entry.responseDueDate, locale)}</dd>
          </>
        ) : null}
        <dt className="text-muted">Received</dt>
        <dd>{formatDateTime(entry.at, locale)}</dd>
      </dl>
    </li>
  )
}

import { CodeText } from '~/components/ui/code-text'
import { Link } from 'react-router'
import { StateBadge, StatusText } from '~/components/documents/document-badges'
import { Badge } from '~/components/ui/badge'
import { CDE_STATES, type CdeState } from '~/lib/documents/types'
import type { Workflow, WorkflowRevision, WorkflowTask } from '~/lib/doc-control/types'
import { formatDateTime } from '~/lib/format'
import { DueText, outcomeLabel, taskStatusLabel, WorkflowStatusBadge } from './workflow-badges'

/** A review at a glance: where it stands, whose turn it is, when it is due, and what it is about. */
export function WorkflowFacts({ workflow, locale }: { workflow: Workflow; locale: string }) {
  const step = workflow.currentStep !== null ? workflow.steps[workflow.currentStep] : undefined
  const lastStep = workflow.steps[workflow.steps.length - 1]
  return (
    <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-2">
      <Fact term="Status">
        <WorkflowStatusBadge status={workflow.status} />
      </Fact>
      <Fact term="Step under review">
        {workflow.status === 'active' && step && workflow.currentStep !== null ? `Step ${workflow.currentStep + 1} of ${workflow.steps.length}: ${step.name}` : 'None'}
      </Fact>
      <Fact term="Due">
        {workflow.status === 'active' ? <DueText dueAt={workflow.dueAt} overdue={workflow.overdue} locale={locale} bare /> : formatDateTime(workflow.dueAt, locale)}
      </Fact>
      <Fact term="Round">{workflow.round}</Fact>
      <Fact term="Started">
        {workflow.startedBy ? `${workflow.startedBy.displayName}, ` : ''}
        {formatDateTime(workflow.startedAt, locale)}
      </Fact>
      <Fact term="Template">
        {workflow.template.name} (version {workflow.template.version})
      </Fact>
      {workflow.outcome ? <Fact term="Outcome">{outcomeLabel(workflow.outcome, workflow.currentStep !== null ? step?.outcomes : lastStep?.outcomes)}</Fact> : null}
      {workflow.completedAt ? <Fact term="Finished">{formatDateTime(workflow.completedAt, locale)}</Fact> : null}
      {workflow.message ? (
        <div className="flex min-w-0 flex-col gap-1 sm:col-span-2">
          <dt className="text-muted">Message</dt>
          <dd className="break-words whitespace-pre-line text-text">{workflow.message}</dd>
        </div>
      ) : null}
    </dl>
  )
}

function Fact({ term, children }: { term: string; children: React.ReactNode }) {
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <dt className="text-muted">{term}</dt>
      <dd className="break-words text-text">{children}</dd>
    </div>
  )
}

function isCdeState(state: string): state is CdeState {
  return (CDE_STATES as readonly string[]).includes(state)
}

/** The revisions under review (the current round's), each linking to its document. */
export function WorkflowRevisions({ revisions }: { revisions: readonly WorkflowRevision[] }) {
  if (revisions.length === 0) return <p className="text-sm text-muted">None of its documents is visible to you.</p>
  return (
    <ul aria-label="Revisions under review" className="flex flex-col gap-3">
      {revisions.map((r) => (
        <li key={r.revisionId} className="flex flex-col gap-1 rounded-lg border border-border bg-surface p-3 sm:flex-row sm:items-center sm:justify-between">
          <div className="min-w-0">
            <Link to={`/documents/${encodeURIComponent(r.documentId)}`} className="font-mono font-medium text-primary-strong underline underline-offset-2">
              <CodeText code={r.number} />
            </Link>{' '}
            <span className="font-mono font-semibold">{r.code}</span>
            <span className="block text-sm text-muted">{r.title}</span>
          </div>
          <div className="flex flex-wrap items-center gap-2 text-sm">
            <StatusText code={r.status} />
            {isCdeState(r.state) ? <StateBadge state={r.state} /> : <Badge>{r.state}</Badge>}
          </div>
        </li>
      ))}
    </ul>
  )
}

/**
 * The template's steps in order, the one under review marked, each with its reviewers this round:
 * who has answered what and when, who has yet to, and who is overdue.
 */
export function WorkflowSteps({ workflow, locale }: { workflow: Workflow; locale: string }) {
  return (
    <ol aria-label="Steps" className="flex flex-col gap-3">
      {workflow.steps.map((step, index) => {
        const current = workflow.status === 'active' && workflow.currentStep === index
        const tasks = workflow.tasks.filter((t) => t.step === index && t.round === workflow.round)
        return (
          <li
            key={index}
            aria-current={current ? 'step' : undefined}
            aria-label={`Step ${index + 1}: ${step.name}`}
            className={`rounded-lg border bg-surface p-4 ${current ? 'border-primary' : 'border-border'}`}
          >
            <div className="flex flex-wrap items-center gap-2">
              <h3 className="font-semibold text-text">
                Step {index + 1}: {step.name}
              </h3>
              {current ? <Badge tone="info">Under review</Badge> : null}
            </div>
            <p className="mt-1 text-sm text-muted">
              {step.mode === 'parallel'
                ? `Parallel: every reviewer answers, ${step.consolidate === 'any' ? 'the first approval decides' : 'the strictest answer decides'}`
                : 'Serial: the first answer decides'}
              {`; ${step.dueDays} working ${step.dueDays === 1 ? 'day' : 'days'}. Outcomes: `}
              {step.outcomes.map((o) => `${o.label} (${o.status})`).join(', ')}.
            </p>
            {tasks.length > 0 ? (
              <ul aria-label={`Reviewers of step ${index + 1}`} className="mt-3 flex flex-col gap-2 text-sm">
                {tasks.map((task) => (
                  <TaskLine key={task.id} task={task} outcomes={step.outcomes} locale={locale} />
                ))}
              </ul>
            ) : null}
          </li>
        )
      })}
    </ol>
  )
}

function TaskLine({ task, outcomes, locale }: { task: WorkflowTask; outcomes: Workflow['steps'][number]['outcomes']; locale: string }) {
  return (
    <li className="flex flex-col gap-1 border-t border-border pt-2">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <span className="font-medium">{task.assignee.displayName}</span>
        <span className="text-muted">·</span>
        <span>{task.outcome ? outcomeLabel(task.outcome, outcomes) : taskStatusLabel(task.status)}</span>
        {task.status === 'pending' ? <DueText dueAt={task.dueAt} overdue={task.overdue} locale={locale} /> : null}
        {task.actedAt ? <span className="text-muted">{formatDateTime(task.actedAt, locale)}</span> : null}
      </div>
      {task.comment ? <p className="break-words whitespace-pre-line text-muted">{task.comment}</p> : null}
    </li>
  )
}

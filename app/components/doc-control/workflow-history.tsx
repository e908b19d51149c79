import type { Workflow } from '~/lib/doc-control/types'
import { formatDateTime } from '~/lib/format'
import { actionWords, outcomeLabel } from './workflow-badges'

/**
 * The review's record, oldest first, as the API keeps it: who did what at which step, with which
 * outcome and comment, and when (in the reader's locale). It is part of its documents' history.
 */
export function WorkflowHistory({ workflow, locale }: { workflow: Workflow; locale: string }) {
  if (workflow.events.length === 0) return <p className="text-sm text-muted">Nothing recorded yet.</p>
  const revisionCode = new Map(workflow.revisions.map((r) => [r.revisionId, `${r.number} ${r.code}`]))
  return (
    <ol aria-label="History, oldest first" className="flex flex-col gap-3">
      {workflow.events.map((event) => {
        const step = event.step !== null ? workflow.steps[event.step] : undefined
        const about = event.revisionId ? revisionCode.get(event.revisionId) : undefined
        return (
          <li key={event.id} className="rounded-lg border border-border bg-surface p-3 text-sm">
            <p>
              <span className="font-medium">{event.actor?.displayName ?? 'The system'}</span> {actionWords(event.action)}
              {step && event.step !== null ? ` at step ${event.step + 1} (${step.name})` : ''}
              {event.outcome ? (
                <>
                  : <span className="font-medium">{outcomeLabel(event.outcome, step?.outcomes)}</span>
                </>
              ) : null}
              {about ? ` on ${about}` : ''}
            </p>
            {event.comment ? <p className="mt-1 break-words whitespace-pre-line text-text">“{event.comment}”</p> : null}
            <p className="mt-1 text-xs text-muted">
              <time dateTime={event.at}>{formatDateTime(event.at, locale)}</time>
            </p>
          </li>
        )
      })}
    </ol>
  )
}

import { Badge } from '~/components/ui/badge'
import { Card } from '~/components/ui/card'
import { DIAGNOSTIC_CHECK_DESCRIPTIONS, DIAGNOSTIC_CHECK_LABELS, OUTCOME_LABELS, OUTCOME_TONES, type DiagnosticCheckState } from '~/lib/admin/diagnostics'
import { formatDateTime } from '~/lib/format'

/** Spec §3 failure tracking, said in words. */
export function trackingInWords(state: DiagnosticCheckState, locale: string): string {
  const when = (iso: string | null) => (iso ? formatDateTime(iso, locale) : null)
  const parts: string[] = []
  if (state.consecutiveFailures > 0) parts.push(`Failing: ${state.consecutiveFailures} run${state.consecutiveFailures === 1 ? '' : 's'} in a row.`)
  if (state.failureCount === 0) parts.push(state.lastSuccessUtc ? 'Never failed.' : 'No result yet.')
  else parts.push(`Failed ${state.failureCount} time${state.failureCount === 1 ? '' : 's'} in all, last on ${when(state.lastFailureUtc)}.`)
  if (state.lastSuccessUtc) parts.push(`Last passed on ${when(state.lastSuccessUtc)}.`)
  return parts.join(' ')
}

/**
 * Each check's current state in one scope: its outcome in the latest run, its message, the failure
 * tracking in words and, while it fails, the last error.
 */
export function DiagnosticsCheckStates({ states, locale, label }: { states: readonly DiagnosticCheckState[]; locale: string; label: string }) {
  return (
    <ul aria-label={label} className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3">
      {states.map((state) => (
        <li key={state.check}>
          <Card className="flex h-full flex-col gap-2 p-4">
            <div className="flex flex-wrap items-start justify-between gap-2">
              <h3 className="font-semibold text-text">{DIAGNOSTIC_CHECK_LABELS[state.check]}</h3>
              {state.lastOutcome ? <Badge tone={OUTCOME_TONES[state.lastOutcome]}>{OUTCOME_LABELS[state.lastOutcome]}</Badge> : <Badge>Not run yet</Badge>}
            </div>
            <p className="text-sm break-words text-text">{state.lastMessage ?? DIAGNOSTIC_CHECK_DESCRIPTIONS[state.check]}</p>
            <p className="text-sm text-muted">{trackingInWords(state, locale)}</p>
            {state.consecutiveFailures > 0 && state.lastError ? (
              <p className="rounded-md border border-critical/30 bg-critical-surface p-3 text-sm break-words text-critical">
                <span className="font-medium">Last error: </span>
                {state.lastError}
              </p>
            ) : null}
          </Card>
        </li>
      ))}
    </ul>
  )
}

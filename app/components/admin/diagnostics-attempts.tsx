import { Badge } from '~/components/ui/badge'
import { DataTable } from '~/components/ui/data-table'
import { DIAGNOSTIC_CHECK_LABELS, OUTCOME_LABELS, OUTCOME_TONES, type DiagnosticAttempt } from '~/lib/admin/diagnostics'
import { formatNumber } from '~/lib/format'

function detailText(detail: Record<string, unknown>): string | null {
  const entries = Object.entries(detail).filter(([, v]) => v !== null && v !== undefined && v !== '')
  if (entries.length === 0) return null
  return entries.map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' · ')
}

/** Every attempt of a run: which try of which check, how long it took, and what it said. */
export function DiagnosticsAttemptsTable({ attempts, locale }: { attempts: readonly DiagnosticAttempt[]; locale: string }) {
  return (
    <DataTable
      caption="Attempts"
      captionHidden
      rows={attempts}
      rowKey={(a) => a.id}
      columns={[
        {
          key: 'check',
          header: 'Check',
          rowHeader: true,
          cell: (a) => (
            <span className="whitespace-nowrap">
              {DIAGNOSTIC_CHECK_LABELS[a.check]}
              {a.attempt > 1 ? <span className="block text-xs text-muted">Try {a.attempt}</span> : null}
            </span>
          ),
        },
        { key: 'outcome', header: 'Outcome', cell: (a) => <Badge tone={OUTCOME_TONES[a.outcome]}>{OUTCOME_LABELS[a.outcome]}</Badge> },
        { key: 'duration', header: 'Time (ms)', align: 'end', cell: (a) => formatNumber(a.durationMs, locale) },
        {
          key: 'message',
          header: 'Message',
          cell: (a) => {
            const detail = detailText(a.detail)
            return (
              <span className="block min-w-48 break-words">
                {a.message}
                {detail ? <span className="mt-1 block font-mono text-xs break-all text-muted">{detail}</span> : null}
              </span>
            )
          },
        },
      ]}
    />
  )
}

import { Form, Link } from 'react-router'
import { cursorPagination, type CursorPosition } from '~/components/reporting/report-paging'
import { Badge } from '~/components/ui/badge'
import { Button } from '~/components/ui/button'
import { DataTable } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { SelectField } from '~/components/ui/select-field'
import {
  DIAGNOSTIC_CHECK_LABELS,
  OUTCOME_LABELS,
  OUTCOME_TONES,
  RUN_OUTCOMES,
  RUN_SCOPES,
  SCOPE_LABELS,
  TRIGGER_LABELS,
  type DiagnosticRun,
  type DiagnosticsQuery,
} from '~/lib/admin/diagnostics'
import { formatDateTime } from '~/lib/format'

/** The runs list's filters, in the URL: a GET form that works without JavaScript. */
export function DiagnosticsRunFilters({ query }: { query: DiagnosticsQuery }) {
  return (
    <Form method="get" action="/admin/diagnostics" aria-label="Filter runs" className="flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-end" key={`${query.scope}-${query.outcome}`}>
      <SelectField
        label="Whose"
        selectProps={{ name: 'scope', id: 'diagnostics-scope', defaultValue: query.scope ?? '' }}
        options={[{ value: '', label: 'This organisation and this server' }, ...RUN_SCOPES.map((s) => ({ value: s, label: SCOPE_LABELS[s] }))]}
      />
      <SelectField
        label="Outcome"
        selectProps={{ name: 'outcome', id: 'diagnostics-outcome', defaultValue: query.outcome ?? '' }}
        options={[{ value: '', label: 'Any outcome' }, ...RUN_OUTCOMES.map((o) => ({ value: o, label: OUTCOME_LABELS[o] }))]}
      />
      <Button type="submit" variant="secondary">
        Show runs
      </Button>
    </Form>
  )
}

/** Each check of a run as a short labelled state; the failed ones first. */
export function RunChecks({ run }: { run: DiagnosticRun }) {
  if (run.checks.length === 0) return <span className="text-sm text-muted">{run.outcome === 'running' ? 'Under way…' : 'No checks recorded.'}</span>
  const ordered = [...run.checks].sort((a, b) => Number(b.outcome === 'failed') - Number(a.outcome === 'failed'))
  return (
    <ul className="flex flex-wrap gap-1.5" aria-label="Checks">
      {ordered.map((c) => (
        <li key={c.check}>
          <Badge tone={OUTCOME_TONES[c.outcome]}>
            {DIAGNOSTIC_CHECK_LABELS[c.check]}: {OUTCOME_LABELS[c.outcome]}
            {c.attempts > 1 ? ` (${c.attempts} tries)` : ''}
          </Badge>
        </li>
      ))}
    </ul>
  )
}

export function DiagnosticsRunsTable({
  runs,
  locale,
  position,
  nextCursor,
  filtered,
}: {
  runs: readonly DiagnosticRun[]
  locale: string
  position: CursorPosition
  nextCursor: string | null
  filtered: boolean
}) {
  return (
    <DataTable
      caption="Runs"
      captionHidden
      rows={runs}
      rowKey={(r) => r.id}
      emptyState={
        <EmptyState heading={filtered ? 'No runs match' : 'No runs yet'} headingLevel={3}>
          {filtered ? 'Try another outcome, or both organisation and server.' : 'Press “Run checks now”, or wait for the server’s scheduled run.'}
        </EmptyState>
      }
      pagination={cursorPagination(position, nextCursor, 'Run pages')}
      columns={[
        {
          key: 'started',
          header: 'Started',
          rowHeader: true,
          cell: (r) => (
            <Link to={`/admin/diagnostics/${r.id}`} className="font-medium whitespace-nowrap text-primary-strong underline underline-offset-2">
              {formatDateTime(r.startedAtUtc, locale)}
            </Link>
          ),
        },
        { key: 'outcome', header: 'Outcome', cell: (r) => <Badge tone={OUTCOME_TONES[r.outcome]}>{OUTCOME_LABELS[r.outcome]}</Badge> },
        { key: 'checks', header: 'Checks', cell: (r) => <RunChecks run={r} /> },
        {
          key: 'whose',
          header: 'Whose',
          hideOnMobile: true,
          cell: (r) => (
            <span className="whitespace-nowrap">
              {SCOPE_LABELS[r.scope]}
              <span className="block text-xs text-muted">{r.requestedBy ? `By ${r.requestedBy.displayName ?? 'an administrator'}` : TRIGGER_LABELS[r.trigger]}</span>
            </span>
          ),
        },
      ]}
    />
  )
}

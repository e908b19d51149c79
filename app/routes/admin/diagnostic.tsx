import { data, Link } from 'react-router'
import { DiagnosticsAttemptsTable } from '~/components/admin/diagnostics-attempts'
import { RunChecks } from '~/components/admin/diagnostics-runs'
import { Badge } from '~/components/ui/badge'
import { Card } from '~/components/ui/card'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { isRunId, OUTCOME_LABELS, OUTCOME_TONES, SCOPE_LABELS, TRIGGER_LABELS } from '~/lib/admin/diagnostics'
import { createServerApi } from '~/lib/api.server'
import { formatDateTime, formatNumber } from '~/lib/format'
import { useLocale } from '~/root'
import type { Route } from './+types/diagnostic'
import { loadRun } from './diagnostics.server'

/**
 * Administration › Diagnostics › one run (docs/observability.md "Diagnostics"): whose, when, its
 * outcome, each check's result, and every attempt with its time, message and detail.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  if (!isRunId(params.runId)) throw data(null, { status: 404, statusText: 'Not found' })
  const { api, responseHeaders } = createServerApi(request, context)
  const detail = await loadRun(api, params.runId, responseHeaders)
  return data(detail, { headers: responseHeaders })
}

export default function Diagnostic({ loaderData }: Route.ComponentProps) {
  const { run, attempts } = loaderData
  const locale = useLocale()
  const took = run.finishedAtUtc ? Date.parse(run.finishedAtUtc) - Date.parse(run.startedAtUtc) : null
  return (
    <>
      <PageHeader
        title={`Diagnostic run of ${formatDateTime(run.startedAtUtc, locale)}`}
        description={`${SCOPE_LABELS[run.scope]} · ${run.requestedBy ? `Run by ${run.requestedBy.displayName ?? 'an administrator'}` : TRIGGER_LABELS[run.trigger]}`}
        actions={
          <Link to="/admin/diagnostics" className="text-sm text-primary-strong underline underline-offset-2">
            All runs
          </Link>
        }
      />
      <div className="flex flex-col gap-8">
        <Card className="flex flex-col gap-4 p-5">
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            <dt className="text-muted">Outcome</dt>
            <dd>
              <Badge tone={OUTCOME_TONES[run.outcome]}>{OUTCOME_LABELS[run.outcome]}</Badge>
            </dd>
            <dt className="text-muted">Started</dt>
            <dd>{formatDateTime(run.startedAtUtc, locale)}</dd>
            <dt className="text-muted">Took</dt>
            <dd>{took === null ? 'Not finished' : `${formatNumber(took, locale)} ms`}</dd>
            {run.correlationId ? (
              <>
                <dt className="text-muted">Correlation id</dt>
                <dd className="font-mono text-xs break-all">{run.correlationId}</dd>
              </>
            ) : null}
            {run.instanceId ? (
              <>
                <dt className="text-muted">Server process</dt>
                <dd className="font-mono text-xs break-all">{run.instanceId}</dd>
              </>
            ) : null}
          </dl>
          <RunChecks run={run} />
        </Card>
        <Section title="Attempts" description="Every try of every check, in the order they started. A failed check is tried up to three times.">
          <DiagnosticsAttemptsTable attempts={attempts} locale={locale} />
        </Section>
      </div>
    </>
  )
}

export function meta() {
  return [{ title: 'Diagnostic run · Site Portal' }]
}

import { data, Form, Link, useActionData, useNavigation } from 'react-router'
import { DiagnosticsCheckStates } from '~/components/admin/diagnostics-checks'
import { DiagnosticsRunFilters, DiagnosticsRunsTable } from '~/components/admin/diagnostics-runs'
import type { ReportingActionData } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { CsrfInput } from '~/components/ui/csrf-input'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { SubmitButton } from '~/components/ui/submit-button'
import { diagnosticsHref, diagnosticsQuery } from '~/lib/admin/diagnostics'
import { createServerApi } from '~/lib/api.server'
import { useLocale } from '~/root'
import type { Route } from './+types/diagnostics'
import { loadDiagnostics, runChecksNow } from './diagnostics.server'

/**
 * Administration › Diagnostics (docs/observability.md "Diagnostics"): each check's current state for
 * the organisation and for the server, "Run checks now", and the runs, newest first, filtered and
 * paged in the URL. A run opens on its own page with every attempt; the analysis has the charts.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const query = diagnosticsQuery(new URL(request.url))
  const { api, responseHeaders } = createServerApi(request, context)
  const page = await loadDiagnostics(api, request, query, responseHeaders)
  return data({ query, ...page }, { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  switch (String(formData.get('intent') ?? '')) {
    case 'run':
      return runChecksNow(api, responseHeaders)
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

export default function Diagnostics({ loaderData }: Route.ComponentProps) {
  const { query, position, runs, nextCursor, tracking } = loaderData
  const actionData = useActionData<typeof action>() as ReportingActionData | undefined
  const navigation = useNavigation()
  const running = navigation.state !== 'idle' && navigation.formData?.get('intent') === 'run'
  const locale = useLocale()
  const filtered = query.scope !== null || query.outcome !== null
  return (
    <>
      <PageHeader
        title="Diagnostics"
        description="Checks of what the portal depends on: the database, mail, file storage, Redis, the realtime hub, disk space and the clock. The server runs them on a schedule; run them for the organisation whenever you like."
        actions={
          <Link to="/admin/diagnostics/analysis" className="text-sm text-primary-strong underline underline-offset-2">
            Analysis
          </Link>
        }
      />
      <div className="flex flex-col gap-10">
        <Section
          title="This organisation"
          description="The last run by an administrator, and how each check has gone. Mail is the organisation’s own SMTP server when it has one."
          actions={
            <Form method="post" action="/admin/diagnostics">
              <CsrfInput />
              <SubmitButton intent="run" action="/admin/diagnostics" pendingLabel="Running checks…">
                Run checks now
              </SubmitButton>
            </Form>
          }
        >
          {running ? (
            <p role="status" className="text-sm text-muted">
              Running the checks. A failing check is tried up to three times, so this can take a few seconds.
            </p>
          ) : null}
          {actionData?.notice ? (
            <Banner tone="critical" title="The checks did not run" correlationId={actionData.notice.correlationId}>
              {actionData.notice.message}
            </Banner>
          ) : null}
          <DiagnosticsCheckStates states={tracking.organisation} locale={locale} label="This organisation’s checks" />
        </Section>
        <Section title="This server" description="The server’s own scheduled run, the same for every organisation on it.">
          <DiagnosticsCheckStates states={tracking.instance} locale={locale} label="This server’s checks" />
        </Section>
        <Section
          title="Runs"
          actions={
            query.after || filtered ? (
              <Link to={query.after ? diagnosticsHref({ ...query, after: null, back: null }) : diagnosticsHref({})} className="text-sm text-primary-strong underline underline-offset-2">
                {query.after ? 'First page' : 'Clear filters'}
              </Link>
            ) : undefined
          }
        >
          <div className="flex flex-col gap-4">
            <DiagnosticsRunFilters query={query} />
            <DiagnosticsRunsTable runs={runs} locale={locale} position={position} nextCursor={nextCursor} filtered={filtered} />
          </div>
        </Section>
      </div>
    </>
  )
}

export function meta() {
  return [{ title: 'Diagnostics · Site Portal' }]
}

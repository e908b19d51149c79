import { data, Form, Link } from 'react-router'
import { fileSizeText } from '~/components/documents/document-badges'
import { loaded } from '~/components/reporting/item-action'
import { Badge, type BadgeTone } from '~/components/ui/badge'
import { buttonClasses } from '~/components/ui/button'
import { CsrfInput } from '~/components/ui/csrf-input'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { Pagination } from '~/components/ui/pagination'
import { SubmitButton } from '~/components/ui/submit-button'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { createServerApi } from '~/lib/api.server'
import { EXPORT_JOB_FILES, EXPORT_JOB_STATUS_LABELS, exportUnit, isExportInProgress, type ExportJob } from '~/lib/exports/types'
import { formatDateTime, formatNumber } from '~/lib/format'
import { useLocale } from '~/root'
import type { Route } from './+types/exports'

/**
 * /exports, "My exports" (docs/exports.md "Large exports as a job"): the person's own export jobs,
 * newest first, a page at a time: state, progress, size, when the link expires, the download while
 * it is valid, and "Run again" for a failed or expired one (the job page's own form, so both run it
 * the same way). Reached from the account menu and from every export's page. Plain links and
 * forms: it works without JavaScript; with it, the list reloads when the hub says one of the
 * person's jobs changed.
 */

const PAGE_SIZE = 20

export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const after = new URL(request.url).searchParams.get('after')
  const query = new URLSearchParams({ limit: String(PAGE_SIZE), ...(after ? { after } : {}) })
  const page = loaded(await api.GET('/api/exports', { query }), responseHeaders)
  return data({ page, paged: Boolean(after) }, { headers: responseHeaders })
}

export default function MyExports({ loaderData }: Route.ComponentProps) {
  const { page, paged } = loaderData
  const locale = useLocale()
  useLiveRevalidation((change) => change.entityType === 'ExportJob' && page.items.some((job) => job.id === change.entityId))
  return (
    <>
      <PageHeader title="My exports" description="The exports prepared for you in the background. Only you see them; each link works for a while, then the export can be run again." />
      {page.items.length === 0 ? (
        <EmptyState heading={paged ? 'No older exports' : 'No exports yet'}>
          {paged ? (
            <Link to="/exports">Back to the newest</Link>
          ) : (
            <>
              A report PDF, a punch list PDF, or a spreadsheet of items, of the document register or of transmittals too large to download at once is prepared in the
              background and listed here. Start one from a <Link to="/reports">report</Link>, from <Link to="/items">Items</Link>, from{' '}
              <Link to="/documents">Documents</Link> or from <Link to="/doc-control/transmittals">Transmittals</Link>.
            </>
          )}
        </EmptyState>
      ) : (
        <ul className="flex flex-col divide-y divide-border rounded-lg border border-border bg-surface" aria-label="My exports">
          {page.items.map((job) => (
            <ExportRow key={job.id} job={job} locale={locale} />
          ))}
        </ul>
      )}
      <Pagination label="Export pages" previous={paged ? { after: null } : null} next={page.nextCursor ? { after: page.nextCursor } : null} />
    </>
  )
}

function stateOf(job: ExportJob): { label: string; tone: BadgeTone } {
  if (job.expired) return { label: 'Link expired', tone: 'warning' }
  const tones: Record<ExportJob['status'], BadgeTone> = { queued: 'neutral', running: 'info', ready: 'success', failed: 'critical' }
  return { label: EXPORT_JOB_STATUS_LABELS[job.status], tone: tones[job.status] }
}

function ExportRow({ job, locale }: { job: ExportJob; locale: string }) {
  const state = stateOf(job)
  const running = isExportInProgress(job)
  return (
    <li className="flex flex-col gap-3 p-4 sm:flex-row sm:items-start sm:justify-between" data-export-status={job.expired ? 'expired' : job.status}>
      <div className="flex min-w-0 flex-col gap-1">
        <Link to={`/exports/${job.id}`} className="font-medium break-words text-primary-strong underline-offset-2 hover:underline">
          {job.title}
        </Link>
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-muted">
          <Badge tone={state.tone}>{state.label}</Badge>
          <span>
            Started <time dateTime={job.startedAt}>{formatDateTime(job.startedAt, locale)}</time>
          </span>
          {job.status === 'ready' && job.sizeBytes !== null ? (
            <>
              <span aria-hidden="true">·</span>
              <span>{fileSizeText(job.sizeBytes)}</span>
            </>
          ) : null}
        </div>
        {running ? (
          <div className="flex flex-wrap items-center gap-2 text-sm text-muted">
            <progress value={job.percent} max={100} aria-label={`${job.title}: prepared`} className="h-2 w-40 accent-primary">
              {job.percent}%
            </progress>
            <span>
              {job.percent}% · {exportUnit(job.kind, job.itemsTotal)} {formatNumber(job.itemsDone, locale)}/{formatNumber(job.itemsTotal, locale)}
            </span>
          </div>
        ) : null}
        {job.status === 'failed' && job.error ? <p className="text-sm text-critical">{job.error}</p> : null}
        {job.downloadUrl && job.expiresAt ? (
          <p className="text-sm text-muted">
            Link works until <time dateTime={job.expiresAt}>{formatDateTime(job.expiresAt, locale)}</time>
          </p>
        ) : null}
      </div>
      <div className="flex shrink-0 flex-wrap items-center gap-2">
        {job.downloadUrl ? (
          <a href={job.downloadUrl} download className={buttonClasses({ variant: 'primary', size: 'sm' })} aria-label={`Download ${EXPORT_JOB_FILES[job.kind].format}: ${job.title}`}>
            Download {EXPORT_JOB_FILES[job.kind].format}
          </a>
        ) : null}
        {job.status === 'failed' || job.expired ? (
          // The export page's own form: it runs the job again and follows it there.
          <Form method="post" action={`/exports/${job.id}`}>
            <CsrfInput />
            <SubmitButton action={`/exports/${job.id}`} intent="retry" variant="secondary" size="sm" pendingLabel="Starting…" aria-label={`Run again: ${job.title}`}>
              Run again
            </SubmitButton>
          </Form>
        ) : null}
      </div>
    </li>
  )
}

export function meta() {
  return [{ title: 'My exports · Site Portal' }]
}

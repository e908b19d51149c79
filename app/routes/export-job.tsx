import { useEffect } from 'react'
import { data, Form, Link, redirect, useLocation, useRevalidator } from 'react-router'
import { fileSizeText } from '~/components/documents/document-badges'
import { loaded } from '~/components/reporting/item-action'
import { Banner } from '~/components/ui/banner'
import { buttonClasses } from '~/components/ui/button'
import { CsrfInput } from '~/components/ui/csrf-input'
import { PageHeader } from '~/components/ui/page-header'
import { SubmitButton } from '~/components/ui/submit-button'
import { useHydrated } from '~/components/ui/use-hydrated'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { createServerApi } from '~/lib/api.server'
import { EXPORT_JOB_FILES, EXPORT_JOB_STATUS_LABELS, exportUnit, isExportInProgress, type ExportJob } from '~/lib/exports/types'
import { setFlash } from '~/lib/flash.server'
import { formatDateTime, formatNumber } from '~/lib/format'
import { MAIL_QUEUED, mailSetUp } from '~/lib/mail-status.server'
import { useLocale } from '~/root'
import type { Route } from './+types/export-job'

/**
 * /exports/{exportId} (docs/exports.md "Large exports as a job"): a large export's progress, then
 * its download link until it expires; a failed or expired one can be run again. With JavaScript
 * the page reloads its data whenever the hub says the job changed (its owner alone hears it).
 * Without, `?follow=1` (where starting an export lands) refreshes the page every few seconds while
 * the job runs: an HTTP Refresh header, which only a whole page load obeys (a navigation with
 * script reads the loader's data and ignores it), and which the person can stop ("Stop
 * refreshing", WCAG 2.2.1) or start again; "Refresh status" reloads it once.
 */

/** Seconds between the refreshes of the page without JavaScript. */
export const EXPORT_REFRESH_SECONDS = 2
/** With JavaScript, how often the page reloads its data while the job runs even without a word from the hub. */
const EXPORT_FALLBACK_POLL_MS = 5000

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const job = loaded(await api.GET('/api/exports/{id}', { path: { id: params.exportId } }), responseHeaders)
  const following = new URL(request.url).searchParams.get('follow') === '1'
  if (following && isExportInProgress(job)) responseHeaders.set('refresh', String(EXPORT_REFRESH_SECONDS))
  // What the page says of the mail asked for: the truth, "queued" when mail is not set up.
  const mailNote = job.notify ? ((await mailSetUp(api)) ? 'You will get an e-mail when it is ready.' : `You asked for an e-mail when it is ready: ${MAIL_QUEUED}.`) : null
  return data({ job, mailNote, following }, { headers: responseHeaders })
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  if (formData.get('intent') !== 'retry') throw data('Unknown intent', { status: 400 })
  const result = await api.POST('/api/exports/{id}/retry', { path: { id: params.exportId }, idempotencyKey: true })
  if (!result.ok && result.error.status === 404) throw data(null, { status: 404, headers: responseHeaders })
  await setFlash(responseHeaders, result.ok ? { tone: 'success', message: 'The export runs again.' } : { tone: 'critical', message: 'The export could not be started again. Try again.' })
  throw redirect(`/exports/${params.exportId}?follow=1`, { headers: responseHeaders })
}

/** The page's own Refresh header (set by the loader while it follows a running job) on the whole page's response. */
export function headers({ loaderHeaders }: Route.HeadersArgs) {
  const refresh = loaderHeaders.get('refresh')
  return refresh ? { refresh } : {}
}

export default function ExportJobPage({ loaderData }: Route.ComponentProps) {
  const { job, mailNote, following } = loaderData
  useLiveRevalidation((change) => change.entityType === 'ExportJob' && change.entityId === job.id)
  const locale = useLocale()
  const running = isExportInProgress(job)
  // Should the hub be unreachable (or an event missed), the page still catches up now and then.
  const { revalidate } = useRevalidator()
  useEffect(() => {
    if (!running) return
    const timer = window.setInterval(() => void revalidate(), EXPORT_FALLBACK_POLL_MS)
    return () => window.clearInterval(timer)
  }, [running, revalidate])
  return (
    <>
      <PageHeader
        title={job.title}
        description={
          <>
            Started {formatDateTime(job.startedAt, locale)} ·{' '}
            <Link to={job.returnTo} className="text-primary-strong underline underline-offset-2">
              Back to where it was started
            </Link>{' '}
            ·{' '}
            <Link to="/exports" className="text-primary-strong underline underline-offset-2">
              My exports
            </Link>
          </>
        }
      />
      <div className="flex max-w-2xl flex-col gap-4">
        <Progress job={job} locale={locale} following={following} />
        {mailNote && job.status !== 'failed' ? <p className="text-sm text-muted">{mailNote}</p> : null}
      </div>
    </>
  )
}

function Progress({ job, locale, following }: { job: ExportJob; locale: string; following: boolean }) {
  const hydrated = useHydrated()
  const location = useLocation()
  const running = isExportInProgress(job)
  if (job.status === 'failed' || job.expired) {
    return (
      <>
        <Banner tone={job.expired ? 'warning' : 'critical'} title={job.expired ? 'This export’s link has expired' : 'The export failed'}>
          {job.expired ? 'Its file was deleted. Run it again to make a new one.' : (job.error ?? 'It could not be made.')}
        </Banner>
        <Form method="post">
          <CsrfInput />
          <SubmitButton intent="retry" variant="primary" pendingLabel="Starting…">
            Run it again
          </SubmitButton>
        </Form>
      </>
    )
  }
  return (
    <>
      <div role="status" aria-live="polite" className="flex flex-col gap-2">
        <p className="text-sm font-medium text-text">
          {EXPORT_JOB_STATUS_LABELS[job.status]}
          {job.status === 'ready' && job.sizeBytes !== null ? `, ${fileSizeText(job.sizeBytes)}` : null}
        </p>
        <progress value={job.percent} max={100} aria-label="Export prepared" className="h-3 w-full max-w-md accent-primary">
          {job.percent}%
        </progress>
        <p className="text-sm text-muted">
          {job.percent}% · {exportUnit(job.kind, job.itemsTotal)} {formatNumber(job.itemsDone, locale)}/{formatNumber(job.itemsTotal, locale)}
        </p>
      </div>
      {running ? (
        hydrated ? (
          <p className="text-sm text-muted">This updates by itself; you may leave the page and come back.</p>
        ) : (
          <div className="flex flex-wrap items-center gap-3">
            <Link to={`${location.pathname}${following ? '?follow=1' : ''}`} className={buttonClasses({ variant: 'secondary', size: 'sm' })}>
              Refresh status
            </Link>
            {following ? (
              <>
                <span className="text-sm text-muted">This page refreshes itself every {EXPORT_REFRESH_SECONDS} seconds until the export is ready.</span>
                <Link to={location.pathname} className="text-sm text-primary-strong underline underline-offset-2">
                  Stop refreshing
                </Link>
              </>
            ) : (
              <Link to={`${location.pathname}?follow=1`} className="text-sm text-primary-strong underline underline-offset-2">
                Refresh every {EXPORT_REFRESH_SECONDS} seconds until it is ready
              </Link>
            )}
          </div>
        )
      ) : null}
      {job.status === 'ready' && job.downloadUrl ? (
        <div className="flex flex-col gap-1">
          <div>
            <a href={job.downloadUrl} download className={buttonClasses({ variant: 'primary' })}>
              Download {EXPORT_JOB_FILES[job.kind].format}
            </a>
          </div>
          {job.expiresAt ? <p className="text-sm text-muted">The link works for you only, until {formatDateTime(job.expiresAt, locale)}.</p> : null}
        </div>
      ) : null}
    </>
  )
}

export function meta({ data: loaderData }: Route.MetaArgs) {
  return [{ title: `${loaderData?.job.title ?? 'Export'} · Site Portal` }]
}

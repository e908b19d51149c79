import { Form, Link, useLocation } from 'react-router'
import { fileSizeText } from '~/components/documents/document-badges'
import { buttonClasses } from '~/components/ui/button'
import { CsrfInput } from '~/components/ui/csrf-input'
import { SubmitButton } from '~/components/ui/submit-button'
import { useHydrated } from '~/components/ui/use-hydrated'
import { isInProgress, usePackagePoll } from '~/islands/package/use-package-poll'
import type { TransmittalPackage } from '~/lib/doc-control/types'
import { formatNumber } from '~/lib/format'
import { packageStatusLabel } from './transmittal-labels'

/**
 * The transmittal's ZIP (docs/doc-control.md "Packaging"): "Prepare ZIP" starts the background
 * job; while it runs the page shows its progress (percent, files, bytes), polled about once a
 * second with JavaScript and brought up to date by "Refresh status" without; once ready, a
 * "Download ZIP" link (a plain link: the download streams, and resumes with Range).
 */
export function PackageProgress({ transmittalId, pkg: loaded, locale }: { transmittalId: string; pkg: TransmittalPackage | null; locale: string }) {
  const pkg = usePackagePoll(transmittalId, loaded)
  const hydrated = useHydrated()
  const location = useLocation()
  if (!pkg) {
    return (
      <div className="flex flex-col gap-3">
        <p className="text-sm text-muted">One ZIP of every revision’s file, with a cover sheet listing the contents. It is prepared in the background.</p>
        <PrepareForm label="Prepare ZIP" />
      </div>
    )
  }
  const running = isInProgress(pkg)
  return (
    <div className="flex flex-col gap-3">
      <div role="status" aria-live="polite" className="flex flex-col gap-2">
        <p className="text-sm font-medium text-text">
          {packageStatusLabel(pkg.status)}
          {pkg.status === 'ready' && pkg.sizeBytes !== null ? `, ${fileSizeText(pkg.sizeBytes)}` : null}
        </p>
        {pkg.status !== 'failed' ? (
          <>
            <progress value={pkg.percent} max={100} aria-label="ZIP prepared" className="h-3 w-full max-w-md accent-primary">
              {pkg.percent}%
            </progress>
            <p className="text-sm text-muted">
              {pkg.percent}% · files {formatNumber(pkg.filesDone, locale)}/{formatNumber(pkg.filesTotal, locale)} · {fileSizeText(pkg.bytesDone)} of {fileSizeText(pkg.bytesTotal)}
            </p>
          </>
        ) : (
          <p className="text-sm text-critical">{pkg.error ?? 'The ZIP could not be prepared.'}</p>
        )}
      </div>
      {running ? (
        hydrated ? (
          <p className="text-sm text-muted">This updates by itself.</p>
        ) : (
          <div>
            <Link to={`${location.pathname}${location.search}`} className={buttonClasses({ variant: 'secondary', size: 'sm' })}>
              Refresh status
            </Link>
          </div>
        )
      ) : null}
      {pkg.status === 'ready' && pkg.downloadUrl ? (
        <div>
          <a href={pkg.downloadUrl} download className={buttonClasses({ variant: 'primary' })}>
            Download ZIP
          </a>
        </div>
      ) : null}
      {pkg.status === 'failed' ? <PrepareForm label="Try again" /> : null}
    </div>
  )
}

function PrepareForm({ label }: { label: string }) {
  return (
    <Form method="post">
      <CsrfInput />
      <SubmitButton intent="package" variant="secondary" pendingLabel="Starting…">
        {label}
      </SubmitButton>
    </Form>
  )
}

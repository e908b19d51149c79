import { type ReactNode } from 'react'
import { useLocation } from 'react-router'
import { Banner } from '~/components/ui/banner'
import { buttonClasses } from '~/components/ui/button'
import { ButtonLink } from '~/components/ui/button-link'
import { cx } from '~/components/ui/class-names'

export type ErrorScreenProps = {
  /** Defaults by status: "Not found" for 404, "Access denied" for 403, else "Unexpected error" (spec §8 "default title"). */
  title?: string
  message: string
  correlationId?: string | null
  status?: number
  /**
   * Outside the signed-in shell (the root error boundary) the screen brings its own
   * `<main id="main">`; inside the shell, `AppShell` already has one.
   */
  standalone?: boolean
}

/** The screen's title for a status: a missing page and a refusal say so; anything else is unexpected. */
export function errorTitle(status: number | undefined): string {
  if (status === 404) return 'Not found'
  if (status === 403) return 'Access denied'
  return 'Unexpected error'
}

/**
 * Whether loading the page again can help: not for a page that does not exist, is refused or was
 * asked for wrongly (4xx), which answer the same the next time; yes for a fault or a lost connection.
 */
export function retryCanHelp(status: number | undefined): boolean {
  return status === undefined || status >= 500 || status === 408 || status === 429
}

/** A route error: what went wrong, its correlation id, and the ways out. */
export function ErrorScreen({ title, message, correlationId, status, standalone = false }: ErrorScreenProps) {
  const location = useLocation()
  const here = `${location.pathname}${location.search}`
  return (
    <ErrorFrame standalone={standalone}>
      {status ? <p className="text-sm font-medium text-muted">Error {status}</p> : null}
      <h1 className="text-2xl font-semibold tracking-tight text-text">{title ?? errorTitle(status)}</h1>
      <Banner tone={status === 404 ? 'info' : 'critical'} correlationId={correlationId}>
        <p>{message}</p>
      </Banner>
      {status === 404 ? (
        <div className="flex flex-col gap-2 text-text">
          <p>The address may be mistyped, or what it pointed to was removed or moved. From here you can go to:</p>
          <ul className="list-inside list-disc">
            <li>
              <a href="/projects">Projects</a>, to find the project it belonged to
            </li>
            <li>
              <a href="/documents">Documents</a> or <a href="/items">Items</a>, to search for it
            </li>
          </ul>
        </div>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <ButtonLink to="/dashboard" reloadDocument>
          Go to Dashboard
        </ButtonLink>
        {retryCanHelp(status) ? (
          // A full page load: after an error the client-side state is not to be trusted.
          <a href={here} className={buttonClasses({ variant: 'secondary' })}>
            Try again
          </a>
        ) : null}
      </div>
    </ErrorFrame>
  )
}

function ErrorFrame({ standalone, children }: { standalone: boolean; children: ReactNode }) {
  const className = 'flex w-full max-w-2xl flex-col gap-4'
  if (!standalone) return <div className={className}>{children}</div>
  return (
    <main id="main" tabIndex={-1} className={cx(className, 'mx-auto px-4 py-10 outline-none sm:py-16')}>
      {children}
    </main>
  )
}

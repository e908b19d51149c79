import { type ReactNode } from 'react'
import { useLocation } from 'react-router'
import { Banner } from '~/components/ui/banner'
import { buttonClasses } from '~/components/ui/button'
import { ButtonLink } from '~/components/ui/button-link'
import { cx } from '~/components/ui/class-names'

export type ErrorScreenProps = {
  /** Defaults to "Unexpected error" (spec §8 "default title"). */
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

/** A route error: what went wrong, its correlation id, and the ways out. */
export function ErrorScreen({ title = 'Unexpected error', message, correlationId, status, standalone = false }: ErrorScreenProps) {
  const location = useLocation()
  const here = `${location.pathname}${location.search}`
  return (
    <ErrorFrame standalone={standalone}>
      {status ? <p className="text-sm font-medium text-muted">Error {status}</p> : null}
      <h1 className="text-2xl font-semibold tracking-tight text-text">{title}</h1>
      <Banner tone="critical" correlationId={correlationId}>
        <p>{message}</p>
      </Banner>
      <div className="flex flex-wrap gap-2">
        <ButtonLink to="/dashboard" reloadDocument>
          Go to Dashboard
        </ButtonLink>
        {/* A full page load: after an error the client-side state is not to be trusted. */}
        <a href={here} className={buttonClasses({ variant: 'secondary' })}>
          Try again
        </a>
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

import { Outlet } from 'react-router'
import { ErrorScreen } from '~/components/errors/error-screen'
import { routeErrorCorrelationId, routeErrorMessage, routeErrorStatus, useReportRouteError } from '~/components/errors/route-error'
import { AppShell } from '~/components/shell/app-shell'
import { useShellSession } from '~/root'
import type { Route } from './+types/shell'

/** The signed-in shell around every screen but the public ones. The root loader has guarded it. */
export default function Shell() {
  return (
    <ShellFrame>
      <Outlet />
    </ShellFrame>
  )
}

function ShellFrame({ children }: { children: React.ReactNode }) {
  const session = useShellSession()
  if (!session) return <>{children}</>
  return (
    <AppShell
      session={{
        displayName: session.displayName,
        email: session.email,
        showAdminTab: session.isAdmin,
        userId: session.userId,
        tenantId: session.tenantId,
        mobileSync: session.mobileSync,
      }}
    >
      {children}
    </AppShell>
  )
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  useReportRouteError(error)
  return (
    <ShellFrame>
      <ErrorScreen message={routeErrorMessage(error)} status={routeErrorStatus(error)} correlationId={routeErrorCorrelationId(error)} />
    </ShellFrame>
  )
}

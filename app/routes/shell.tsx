import { data, Outlet } from 'react-router'
import { ErrorScreen } from '~/components/errors/error-screen'
import { routeErrorCorrelationId, routeErrorMessage, routeErrorStatus, useReportRouteError } from '~/components/errors/route-error'
import { AppShell } from '~/components/shell/app-shell'
import type { BellData } from '~/components/shell/notification-bell'
import { createServerApi } from '~/lib/api.server'
import { useShellSession } from '~/root'
import type { Route } from './+types/shell'

/**
 * The header's notifications bell: the unread count, rendered on the server so it shows without
 * JavaScript. A failure leaves the bell without a count rather than failing the screen.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const result = await api.GET('/api/notifications/unread-count')
  const bell: BellData = { unread: result.ok ? result.data.unread : null }
  return data(bell, { headers: responseHeaders })
}

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

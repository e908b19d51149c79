import { Card } from '~/components/ui/card'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { useShellSession } from '~/root'

/** The dashboard (/, /control-panel, /dashboard). Its figures arrive with site reporting. */
export default function Dashboard() {
  const session = useShellSession()
  if (!session) return null
  return (
    <>
      <PageHeader title="Dashboard" description={`Welcome, ${session.displayName}.`} />
      <div className="grid gap-4 md:grid-cols-3">
        <Card className="p-4">
          <h2 className="text-sm font-medium text-muted">Organisation</h2>
          <p className="mt-1 text-lg font-semibold">{session.tenantName}</p>
        </Card>
        <Card className="p-4">
          <h2 className="text-sm font-medium text-muted">Your role</h2>
          <p className="mt-1 text-lg font-semibold">{session.isAdmin ? 'Administrator' : session.roles.includes('ReadOnly') ? 'Read Only' : 'Read & Write'}</p>
        </Card>
        <Card className="p-4">
          <h2 className="text-sm font-medium text-muted">Signed in as</h2>
          <p className="mt-1 text-lg font-semibold break-all">{session.email}</p>
        </Card>
      </div>
      <div className="mt-6">
        <EmptyState heading="No items to show yet">
          Open items, items waiting for your confirmation and overdue items will appear here once site reporting is available.
        </EmptyState>
      </div>
    </>
  )
}

export function meta() {
  return [{ title: 'Dashboard · Site Portal' }]
}

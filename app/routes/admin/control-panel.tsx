import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { useShellSession } from '~/root'

/** The admin control panel (spec §2). Its figures arrive with the admin issues. */
export default function ControlPanel() {
  const session = useShellSession()
  return (
    <>
      <PageHeader title="Admin control panel" description={session ? `Administration of ${session.tenantName}.` : undefined} />
      <EmptyState heading="Nothing to administer here yet">
        Users, invites, audit, configuration and the other admin pages are listed in the sidebar; they are not built yet.
      </EmptyState>
    </>
  )
}

export function meta() {
  return [{ title: 'Admin control panel · Site Portal' }]
}

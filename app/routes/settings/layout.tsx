import { NavLink, Outlet } from 'react-router'
import { ButtonLink } from '~/components/ui/button-link'
import { PageHeader } from '~/components/ui/page-header'
import { useShellSession } from '~/root'

const TABS = [
  { to: '/settings/user', label: 'User', adminOnly: false },
  { to: '/settings/site', label: 'Site', adminOnly: false },
  { to: '/settings/notifications', label: 'Notifications', adminOnly: false },
  { to: '/settings/admin', label: 'Admin', adminOnly: true },
  { to: '/settings/link', label: 'Link subscription', adminOnly: true },
  { to: '/settings/billing', label: 'Billing', adminOnly: true },
  { to: '/settings/entitlements', label: 'Entitlements', adminOnly: true },
  { to: '/settings/support', label: 'Support', adminOnly: false },
]

/** Settings with tabs (spec §2): the admin tab and the control-panel button for admins only. */
export default function SettingsLayout() {
  const session = useShellSession()
  const isAdmin = Boolean(session?.isAdmin)
  return (
    <>
      <PageHeader
        title="Settings"
        actions={
          isAdmin ? (
            <ButtonLink to="/admin/control-panel" variant="secondary">
              Open Admin Control Panel
            </ButtonLink>
          ) : undefined
        }
      />
      {/* The tabs wrap onto a second line on a phone rather than scroll sideways. */}
      <nav aria-label="Settings" className="mb-6 border-b border-border">
        <ul className="flex flex-wrap gap-x-1">
          {TABS.filter((tab) => isAdmin || !tab.adminOnly).map((tab) => (
            <li key={tab.to}>
              <NavLink
                to={tab.to}
                end={tab.to !== '/settings/billing' && tab.to !== '/settings/support'}
                className={({ isActive }) =>
                  `inline-block border-b-2 px-3 py-2 text-sm font-medium ${isActive ? 'border-primary text-text' : 'border-transparent text-muted hover:text-text'}`
                }
              >
                {tab.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <Outlet />
    </>
  )
}

import { Link, NavLink, useLocation } from 'react-router'
import { cx } from '~/components/ui/class-names'

type Tab = {
  label: string
  to: string
  /** Other addresses that belong to this tab (spec §2: / and /control-panel are the dashboard). */
  alsoActiveOn?: (pathname: string) => boolean
}

const TABS: readonly Tab[] = [
  { label: 'Dashboard', to: '/dashboard', alsoActiveOn: (pathname) => pathname === '/' || isWithin(pathname, '/control-panel') },
  { label: 'Projects', to: '/projects' },
  { label: 'Reports', to: '/reports' },
  { label: 'Documents', to: '/documents', alsoActiveOn: (pathname) => isWithin(pathname, '/doc-control') },
  { label: 'Items', to: '/items' },
  { label: 'Settings', to: '/settings' },
]

const ADMIN_TAB: Tab = { label: 'Admin', to: '/admin' }

function isWithin(pathname: string, base: string) {
  return pathname === base || pathname.startsWith(`${base}/`)
}

const tabClass = (active: boolean) =>
  cx(
    // The row scrolls, which clips anything drawn outside it: the focus ring goes inside the tab.
    'inline-flex min-h-11 items-center border-b-[3px] px-3 text-sm font-medium whitespace-nowrap no-underline focus-visible:-outline-offset-3',
    active ? 'border-primary text-text' : 'border-transparent text-muted hover:border-border-strong hover:text-text',
  )

/**
 * The top tabs of the signed-in shell (spec §2). On a phone the row scrolls sideways: every tab
 * stays a plain link, with no menu that needs JavaScript to open.
 */
export function NavTabs({ showAdminTab }: { showAdminTab: boolean }) {
  const { pathname } = useLocation()
  const tabs = showAdminTab ? [...TABS, ADMIN_TAB] : TABS
  return (
    <nav aria-label="Main" className="scroll-shadow-x overflow-x-auto">
      <ul className="flex gap-1 px-2">
        {tabs.map((tab) => (
          <li key={tab.to} className="shrink-0">
            {tab.alsoActiveOn?.(pathname) ? (
              // NavLink only knows its own address; an alias of the tab is marked by hand.
              <Link to={tab.to} aria-current="page" className={tabClass(true)}>
                {tab.label}
              </Link>
            ) : (
              <NavLink to={tab.to} className={({ isActive }) => tabClass(isActive)}>
                {tab.label}
              </NavLink>
            )}
          </li>
        ))}
      </ul>
    </nav>
  )
}

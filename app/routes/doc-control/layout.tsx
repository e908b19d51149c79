import { NavLink, Outlet, useLocation } from 'react-router'

/**
 * Document control (issue 12, docs/doc-control.md): one heading area for its screens and tabs
 * between them. Each screen works on one project, named by `projectId` in the address; the tabs
 * keep it, so moving between screens stays in the project.
 */
const TABS = [
  { to: '/doc-control/dashboard', label: 'Dashboard' },
  { to: '/doc-control/inbox', label: 'Inbox' },
  { to: '/doc-control/wizard', label: 'Issue documents' },
  { to: '/doc-control/transmittals', label: 'Transmittals' },
  { to: '/doc-control/sets', label: 'Sets' },
  { to: '/doc-control/workflows', label: 'Reviews' },
  { to: '/doc-control/deliverables', label: 'Deliverables' },
  { to: '/doc-control/matrix', label: 'Matrix' },
  { to: '/doc-control/parties', label: 'Parties' },
]

export function projectQuery(search: string): string {
  const projectId = new URLSearchParams(search).get('projectId')
  return projectId ? `?${new URLSearchParams({ projectId })}` : ''
}

export default function DocControlLayout() {
  const { search } = useLocation()
  const query = projectQuery(search)
  return (
    <>
      <nav aria-label="Document control" className="mb-6 overflow-x-auto border-b border-border">
        <ul className="flex min-w-max gap-1">
          {TABS.map((tab) => (
            <li key={tab.to}>
              <NavLink
                to={`${tab.to}${query}`}
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

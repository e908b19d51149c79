import { useEffect, useState } from 'react'
import { NavLink, Outlet } from 'react-router'
import { useHydrated } from '~/components/ui/use-hydrated'
import { ADMIN_SECTIONS } from './sections'

const COLLAPSED_KEY = 'sp.adminSidebarCollapsed'

/**
 * The Administration area (guard mode admin, applied by the root loader): a sidebar in sections
 * that can collapse (spec §9: 260 px, 72 px collapsed), remembered in this browser.
 */
export default function AdminLayout() {
  const hydrated = useHydrated()
  const [collapsed, setCollapsed] = useState(false)
  useEffect(() => {
    setCollapsed(window.localStorage.getItem(COLLAPSED_KEY) === '1')
  }, [])
  function toggle() {
    setCollapsed((was) => {
      window.localStorage.setItem(COLLAPSED_KEY, was ? '0' : '1')
      return !was
    })
  }
  return (
    <div className="flex flex-col gap-6 md:flex-row">
      <aside className={`shrink-0 md:transition-[width] ${collapsed ? 'md:w-[72px]' : 'md:w-[260px]'}`}>
        <nav aria-label="Administration" className="rounded-lg border border-border bg-surface p-3">
          {hydrated ? (
            <button
              type="button"
              onClick={toggle}
              aria-expanded={!collapsed}
              className="mb-2 hidden w-full rounded-md px-2 py-1.5 text-left text-sm text-muted hover:bg-surface-muted hover:text-text md:block"
            >
              {collapsed ? '»' : '« Collapse'}
              <span className="sr-only">{collapsed ? 'Expand the sidebar' : ' the sidebar'}</span>
            </button>
          ) : null}
          <div className={collapsed ? 'md:hidden' : undefined}>
            {ADMIN_SECTIONS.map((section) => (
              <div key={section.title} className="mb-3">
                <h2 className="px-2 pb-1 text-xs font-semibold tracking-wide text-muted uppercase">{section.title}</h2>
                <ul>
                  {section.pages.map((page) => (
                    <li key={page.path}>
                      <NavLink
                        to={page.path}
                        end
                        className={({ isActive }) =>
                          `block rounded-md px-2 py-1.5 text-sm ${isActive ? 'bg-primary/10 font-medium text-primary-strong' : 'text-text hover:bg-surface-muted'}`
                        }
                      >
                        {page.label}
                      </NavLink>
                    </li>
                  ))}
                </ul>
              </div>
            ))}
          </div>
        </nav>
      </aside>
      <div className="min-w-0 flex-1">
        <Outlet />
      </div>
    </div>
  )
}

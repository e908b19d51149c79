import { Link, useFetcher, useLocation } from 'react-router'
import { cx } from '~/components/ui/class-names'
import { useHydrated } from '~/components/ui/use-hydrated'
import { ADMIN_SECTIONS, currentAdminPath } from '~/routes/admin/sections'
import { AdminIcon } from './sidebar-icons'

/**
 * The Administration area's sidebar (spec §2, §9): the sections and their pages, 260 px wide or
 * 72 px collapsed to icons (each link keeps its name for assistive technology and as a tooltip).
 * The collapsed state comes from the layout's loader (a cookie), so the server draws it right.
 * On a phone it is a disclosure above the page instead.
 */
export function AdminSidebar({ collapsed: stored }: { collapsed: boolean }) {
  const location = useLocation()
  const fetcher = useFetcher()
  const hydrated = useHydrated()
  // While the toggle is on its way, show where it is going.
  const pending = fetcher.formData?.get('collapsed')
  const collapsed = typeof pending === 'string' ? pending === '1' : stored
  const current = currentAdminPath(location.pathname)
  const currentLabel = ADMIN_SECTIONS.flatMap((s) => s.pages).find((p) => p.path === current)?.label

  return (
    <>
      {/* Phone: a compact list behind a disclosure, above the content. */}
      <details className="rounded-lg border border-border bg-surface md:hidden">
        <summary className="cursor-pointer px-4 py-3 text-sm font-medium text-text">
          Administration menu{currentLabel ? <span className="font-normal text-muted"> · {currentLabel}</span> : null}
        </summary>
        <nav aria-label="Administration" className="border-t border-border px-2 py-2">
          {ADMIN_SECTIONS.map((section) => (
            <div key={section.title} className="mb-2">
              <h2 className="px-2 pt-1 pb-1 text-xs font-semibold tracking-wide text-muted uppercase">{section.title}</h2>
              <ul className="grid grid-cols-1 gap-0.5 sm:grid-cols-2">
                {section.pages.map((page) => (
                  <li key={page.path}>
                    <Link
                      to={page.path}
                      aria-current={page.path === current ? 'page' : undefined}
                      className={cx(
                        'flex items-center gap-2 rounded-md px-2 py-2 text-sm',
                        page.path === current ? 'bg-primary/10 font-medium text-primary-strong' : 'text-text hover:bg-surface-muted',
                      )}
                    >
                      <AdminIcon name={page.icon} className="size-4" />
                      {page.label}
                    </Link>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </nav>
      </details>

      {/* Desktop: 260 px, or 72 px of icons (widths of spec §9; literal for Tailwind). */}
      <aside data-sidebar={collapsed ? 'collapsed' : 'expanded'} className={cx('hidden shrink-0 md:block md:transition-[width]', collapsed ? 'md:w-[72px]' : 'md:w-[260px]')}>
        <nav aria-label="Administration" className="rounded-lg border border-border bg-surface p-2">
          <fetcher.Form method="post" action="/admin/sidebar" className="mb-2">
            <input type="hidden" name="collapsed" value={collapsed ? '0' : '1'} />
            <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
            {hydrated ? <input type="hidden" name="fetch" value="1" /> : null}
            <button
              type="submit"
              aria-expanded={!collapsed}
              title={collapsed ? 'Expand the sidebar' : 'Collapse the sidebar'}
              className={cx('flex w-full items-center gap-2 rounded-md px-3 py-2 text-sm text-muted hover:bg-surface-muted hover:text-text', collapsed && 'justify-center px-0')}
            >
              <AdminIcon name={collapsed ? 'expand' : 'collapse'} />
              <span className={collapsed ? 'sr-only' : undefined}>{collapsed ? 'Expand the sidebar' : 'Collapse the sidebar'}</span>
            </button>
          </fetcher.Form>
          {ADMIN_SECTIONS.map((section) => (
            <div key={section.title} className={cx('mb-2', collapsed && 'border-t border-border pt-2')}>
              <h2 className={collapsed ? 'sr-only' : 'px-3 pb-1 text-xs font-semibold tracking-wide text-muted uppercase'}>{section.title}</h2>
              <ul className="flex flex-col gap-0.5">
                {section.pages.map((page) => (
                  <li key={page.path}>
                    <Link
                      to={page.path}
                      aria-current={page.path === current ? 'page' : undefined}
                      title={collapsed ? page.label : undefined}
                      className={cx(
                        'flex items-center gap-3 rounded-md py-2 text-sm',
                        collapsed ? 'justify-center px-0' : 'px-3',
                        page.path === current ? 'bg-primary/10 font-medium text-primary-strong' : 'text-text hover:bg-surface-muted',
                      )}
                    >
                      <AdminIcon name={page.icon} />
                      <span className={collapsed ? 'sr-only' : 'truncate'}>{page.label}</span>
                    </Link>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </nav>
      </aside>
    </>
  )
}

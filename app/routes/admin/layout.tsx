import { data, Outlet, useLoaderData } from 'react-router'
import { AdminSidebar } from '~/components/admin/sidebar'
import { sidebarCollapsedIn } from '~/components/admin/sidebar-state'
import type { Route } from './+types/layout'

/**
 * The Administration area (guard mode admin, applied by the root loader): the sidebar in sections
 * beside the page. Whether it is collapsed comes from a cookie read here, so the server renders it
 * at the right width (no flash after load), with or without JavaScript.
 */
export function loader({ request }: Route.LoaderArgs) {
  return data({ collapsed: sidebarCollapsedIn(request.headers.get('cookie')) })
}

export default function AdminLayout() {
  const { collapsed } = useLoaderData<typeof loader>()
  return (
    <div className="flex flex-col gap-6 md:flex-row">
      <AdminSidebar collapsed={collapsed} />
      <div className="min-w-0 flex-1">
        <Outlet />
      </div>
    </div>
  )
}

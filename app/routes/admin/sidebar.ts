import { data, redirect } from 'react-router'
import { sidebarCookies } from '~/components/admin/sidebar-state'
import { safeRedirectPath } from '~/lib/auth/guard'
import type { Route } from './+types/sidebar'

/**
 * POST /admin/sidebar: collapses or expands the admin sidebar (a cookie, app/components/admin/
 * sidebar-state.ts). Without JavaScript the form posts here and comes back to the page it was on
 * (`redirectTo`, same-site only); with JavaScript a fetcher posts it (`fetch=1`) and the page stays.
 */
export async function action({ request }: Route.ActionArgs) {
  const form = await request.formData()
  const collapsed = form.get('collapsed') === '1'
  const headers = new Headers()
  for (const line of sidebarCookies(collapsed, new URL(request.url).protocol === 'https:')) headers.append('set-cookie', line)
  if (form.get('fetch') === '1') return data({ collapsed }, { headers })
  throw redirect(safeRedirectPath(form.get('redirectTo'), '/admin/control-panel'), { status: 303, headers })
}

/** Nothing to show here: a visit goes to the control panel. */
export function loader() {
  throw redirect('/admin/control-panel')
}

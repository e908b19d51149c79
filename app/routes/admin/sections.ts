import type { AdminIconName } from '~/components/admin/sidebar-icons'

/**
 * The Administration area's pages (spec §2) in the sidebar's sections. Spec §2 names the sections
 * but not which page sits where; this grouping is ours. Each page has an icon: the collapsed
 * sidebar (72 px) shows only the icons, named by the label.
 */
export type AdminPage = { path: string; label: string; icon: AdminIconName }
export type AdminSection = { title: string; pages: AdminPage[] }

export const ADMIN_SECTIONS: AdminSection[] = [
  { title: 'Overview', pages: [{ path: '/admin/control-panel', label: 'Control panel', icon: 'dashboard' }] },
  {
    title: 'People',
    pages: [
      { path: '/admin/users', label: 'Users', icon: 'users' },
      { path: '/admin/invites', label: 'Invites', icon: 'mail' },
      { path: '/admin/join-requests', label: 'Join requests', icon: 'user-plus' },
      { path: '/admin/devices', label: 'Devices', icon: 'device' },
    ],
  },
  {
    title: 'Governance',
    pages: [
      { path: '/admin/audit', label: 'Audit', icon: 'audit' },
      { path: '/admin/packages', label: 'Packages', icon: 'package' },
      { path: '/admin/drawings-overlay', label: 'Drawings overlay', icon: 'layers' },
      { path: '/admin/uploads', label: 'Uploads', icon: 'upload' },
      { path: '/admin/retention', label: 'Retention', icon: 'archive' },
    ],
  },
  {
    title: 'Observability',
    pages: [
      { path: '/admin/telemetry', label: 'Telemetry', icon: 'chart' },
      { path: '/admin/frontend-errors', label: 'Frontend errors', icon: 'bug' },
      { path: '/admin/diagnostics', label: 'Diagnostics', icon: 'pulse' },
      { path: '/admin/diagnostics/analysis', label: 'Diagnostics analysis', icon: 'search' },
      { path: '/admin/schema-incidents', label: 'Schema incidents', icon: 'alert' },
      { path: '/admin/logs', label: 'Logs', icon: 'list' },
      { path: '/admin/mail-outbox', label: 'Mail outbox', icon: 'inbox' },
    ],
  },
  { title: 'Support', pages: [{ path: '/admin/support', label: 'Support tickets', icon: 'lifebuoy' }] },
  { title: 'Security', pages: [{ path: '/admin/security/csp-reports', label: 'CSP reports', icon: 'lock' }] },
  {
    title: 'Workflows',
    pages: [
      { path: '/admin/workflow-templates', label: 'Workflow templates', icon: 'workflow' },
      { path: '/admin/email-templates', label: 'Email templates', icon: 'template' },
    ],
  },
  { title: 'Configuration', pages: [{ path: '/admin/configuration', label: 'Configuration', icon: 'settings' }] },
]

const PROJECT_OVERLAY = /^\/admin\/projects\/[^/]+\/drawings-overlay\/?$/

/** The label of a known admin page, or undefined for a path that is not one (a 404). */
export function adminPageLabel(pathname: string): string | undefined {
  const path = pathname.replace(/\/$/, '')
  if (PROJECT_OVERLAY.test(path)) return 'Project drawings overlay'
  for (const section of ADMIN_SECTIONS) {
    const page = section.pages.find((p) => p.path === path)
    if (page) return page.label
  }
  return undefined
}

/**
 * The sidebar entry the page at `pathname` belongs to (marked aria-current): the page itself, or
 * the list a detail page opens from (/admin/users/{id} is under Users); /admin is the control panel.
 */
export function currentAdminPath(pathname: string): string | undefined {
  const path = pathname.replace(/\/$/, '')
  if (path === '/admin') return '/admin/control-panel'
  if (PROJECT_OVERLAY.test(path)) return '/admin/drawings-overlay'
  let best: string | undefined
  for (const section of ADMIN_SECTIONS) {
    for (const page of section.pages) {
      if ((path === page.path || path.startsWith(`${page.path}/`)) && page.path.length > (best?.length ?? 0)) best = page.path
    }
  }
  return best
}

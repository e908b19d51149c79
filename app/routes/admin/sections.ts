/**
 * The Administration area's pages (spec §2) in the sidebar's sections. Spec §2 names the sections
 * but not which page sits where; this grouping is ours.
 */
export type AdminPage = { path: string; label: string }
export type AdminSection = { title: string; pages: AdminPage[] }

export const ADMIN_SECTIONS: AdminSection[] = [
  { title: 'Overview', pages: [{ path: '/admin/control-panel', label: 'Control panel' }] },
  {
    title: 'People',
    pages: [
      { path: '/admin/users', label: 'Users' },
      { path: '/admin/invites', label: 'Invites' },
      { path: '/admin/join-requests', label: 'Join requests' },
      { path: '/admin/devices', label: 'Devices' },
    ],
  },
  {
    title: 'Governance',
    pages: [
      { path: '/admin/audit', label: 'Audit' },
      { path: '/admin/packages', label: 'Packages' },
      { path: '/admin/drawings-overlay', label: 'Drawings overlay' },
      { path: '/admin/uploads', label: 'Uploads' },
    ],
  },
  {
    title: 'Observability',
    pages: [
      { path: '/admin/telemetry', label: 'Telemetry' },
      { path: '/admin/frontend-errors', label: 'Frontend errors' },
      { path: '/admin/diagnostics', label: 'Diagnostics' },
      { path: '/admin/diagnostics/analysis', label: 'Diagnostics analysis' },
      { path: '/admin/schema-incidents', label: 'Schema incidents' },
      { path: '/admin/logs', label: 'Logs' },
      { path: '/admin/mail-outbox', label: 'Mail outbox' },
    ],
  },
  { title: 'Support', pages: [{ path: '/admin/support', label: 'Support tickets' }] },
  { title: 'Security', pages: [{ path: '/admin/security/csp-reports', label: 'CSP reports' }] },
  {
    title: 'Workflows',
    pages: [
      { path: '/admin/workflow-templates', label: 'Workflow templates' },
      { path: '/admin/email-templates', label: 'Email templates' },
    ],
  },
  { title: 'Configuration', pages: [{ path: '/admin/configuration', label: 'Configuration' }] },
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

import { type RouteConfig, index, layout, route } from '@react-router/dev/routes'

// Explicit route config, in the order of spec §2.
export default [
  // Public screens
  route('auth/login', 'routes/auth/login.tsx'),
  route('auth/mfa', 'routes/auth/mfa.tsx'),
  route('auth/register', 'routes/auth/register.tsx'),
  route('auth/verify-email', 'routes/auth/verify-email.tsx'),
  // Beyond spec §2: the link mailed to a new address confirms an e-mail change (issue 14).
  route('auth/confirm-email', 'routes/auth/confirm-email.tsx'),
  route('auth/forgot-password', 'routes/auth/forgot-password.tsx'),
  route('auth/logout', 'routes/auth/logout.tsx'),
  route('invite/:token', 'routes/invite.tsx', { id: 'invite' }),
  route('invite/project/:token', 'routes/invite.tsx', { id: 'project-invite' }),
  route('auth/blocked', 'routes/auth/blocked.tsx'),
  // Beyond spec §2: an outside contact's transmittal, opened by the signed link of their mail, without an account (issue 32).
  route('shared/transmittals/:token', 'routes/shared-transmittal.tsx'),
  // Beyond spec §2: where the identity provider sends the browser back (issue 16).
  route('auth/oidc/callback', 'routes/auth/oidc-callback.tsx'),

  // Signed-in screens, inside the shell
  layout('routes/shell.tsx', [
    index('routes/dashboard.tsx', { id: 'home' }),
    route('control-panel', 'routes/dashboard.tsx', { id: 'control-panel' }),
    route('dashboard', 'routes/dashboard.tsx', { id: 'dashboard' }),
    route('projects', 'routes/projects.tsx'),
    route('reports', 'routes/reports.tsx'),
    route('reports/:reportId', 'routes/report.tsx'),
    route('documents', 'routes/documents.tsx'),
    route('documents/:documentId', 'routes/document.tsx'),
    route('documents/:documentId/sheet', 'routes/document-sheet.tsx'),
    route('doc-control', 'routes/doc-control/layout.tsx', [
      route('parties', 'routes/doc-control/parties.tsx'),
      route('matrix', 'routes/doc-control/matrix.tsx'),
      route('deliverables', 'routes/doc-control/deliverables.tsx'),
      route('wizard', 'routes/doc-control/wizard.tsx'),
      route('dashboard', 'routes/doc-control/dashboard.tsx'),
      route('inbox', 'routes/doc-control/inbox.tsx'),
      // Beyond spec §2: the records the screens above lead to.
      route('transmittals', 'routes/doc-control/transmittals.tsx'),
      route('transmittals/:transmittalId', 'routes/doc-control/transmittal.tsx'),
      route('sets', 'routes/doc-control/sets.tsx'),
      route('sets/:setId', 'routes/doc-control/set.tsx'),
      route('workflows', 'routes/doc-control/workflows.tsx'),
      route('workflows/:workflowId', 'routes/doc-control/workflow.tsx'),
    ]),
    // Beyond spec §2: where a signed-in person types an invite code or asks to join an organisation (issue 13).
    route('join', 'routes/join.tsx'),
    // Beyond spec §2: in-app notifications, the header bell's list (issue 31).
    route('notifications', 'routes/notifications.tsx'),
    route('items', 'routes/items.tsx'),
    route('items/:itemId', 'routes/item.tsx'),
    route('items/:itemId/activity', 'routes/item-activity.tsx'),
    route('items/:itemId/pin', 'routes/item-pin.tsx'),
    route('items/:itemId/photos/:photoId/markup', 'routes/photo-markup.tsx'),
    // Beyond spec §2: my exports, and a large export's progress and download (issue 34, docs/exports.md).
    route('exports', 'routes/exports.tsx'),
    route('exports/:exportId', 'routes/export-job.tsx'),

    route('settings', 'routes/settings/layout.tsx', [
      index('routes/settings/user.tsx', { id: 'settings-index' }),
      route('user', 'routes/settings/user.tsx', { id: 'settings-user' }),
      route('site', 'routes/settings/site.tsx'),
      route('notifications', 'routes/settings/notifications.tsx'),
      route('admin', 'routes/settings/admin.tsx'),
      // Beyond spec §2: the appearance form's action (a cookie for this device, and the account's default); the form is on the user tab.
      route('appearance', 'routes/settings/appearance.tsx'),
      route('link', 'routes/settings/link.tsx'),
      route('billing', 'routes/settings/billing.tsx'),
      route('billing/success', 'routes/settings/billing-success.tsx'),
      route('billing/cancel', 'routes/settings/billing-cancel.tsx'),
      route('entitlements', 'routes/settings/entitlements.tsx'),
      // Beyond spec §2: support tickets a user opens (issue 13).
      route('support', 'routes/settings/support.tsx'),
      route('support/:ticketId', 'routes/settings/support-ticket.tsx'),
    ]),

    route('forbidden/admin', 'routes/forbidden-admin.tsx'),
    // Beyond spec §2: the operations guide (docs/operations.md), which screens link to where whoever runs the server must set something.
    route('help/operations', 'routes/help/operations.tsx'),

    // Administration area (guard mode admin)
    route('admin', 'routes/admin/layout.tsx', [
      index('routes/admin/control-panel.tsx', { id: 'admin-index' }),
      route('control-panel', 'routes/admin/control-panel.tsx', { id: 'admin-control-panel' }),
      route('drawings-overlay', 'routes/admin/drawings-overlay.tsx'),
      route('projects/:projectId/drawings-overlay', 'routes/admin/project-drawings-overlay.tsx'),
      route('workflow-templates', 'routes/admin/workflow-templates.tsx'),
      route('users', 'routes/admin/users.tsx'),
      route('users/:userId', 'routes/admin/user.tsx'),
      route('invites', 'routes/admin/invites.tsx'),
      route('join-requests', 'routes/admin/join-requests.tsx'),
      route('devices', 'routes/admin/devices.tsx'),
      route('audit', 'routes/admin/audit.tsx'),
      route('packages', 'routes/admin/packages.tsx'),
      route('uploads', 'routes/admin/uploads.tsx'),
      route('support', 'routes/admin/support.tsx'),
      route('support/:ticketId', 'routes/admin/support-ticket.tsx'),
      route('retention', 'routes/admin/retention.tsx'),
      route('configuration', 'routes/admin/configuration.tsx'),
      route('configuration/:category', 'routes/admin/configuration-category.tsx'),
      route('email-templates', 'routes/admin/email-templates.tsx'),
      route('email-templates/:key', 'routes/admin/email-template.tsx'),
      route('mail-outbox', 'routes/admin/mail-outbox.tsx'),
      route('mail-outbox/:messageId', 'routes/admin/mail-message.tsx'),
      // The sidebar's collapse toggle (a cookie; no screen).
      // Observability (issue 15, docs/observability.md).
      route('telemetry', 'routes/admin/telemetry.tsx'),
      route('frontend-errors', 'routes/admin/frontend-errors.tsx'),
      route('frontend-errors/:fingerprint', 'routes/admin/frontend-error.tsx'),
      route('diagnostics', 'routes/admin/diagnostics.tsx'),
      route('diagnostics/analysis', 'routes/admin/diagnostics-analysis.tsx'),
      route('diagnostics/:runId', 'routes/admin/diagnostic.tsx'),
      route('schema-incidents', 'routes/admin/schema-incidents.tsx'),
      route('security/csp-reports', 'routes/admin/csp-reports.tsx'),
      route('logs', 'routes/admin/logs.tsx'),
      route('sidebar', 'routes/admin/sidebar.ts'),
      route('*', 'routes/admin/coming-later.tsx', { id: 'admin-page' }),
    ]),

    // Any other path, so a signed-in user keeps the shell around the "not found" screen.
    route('*', 'routes/not-found.tsx'),
  ]),
] satisfies RouteConfig

/**
 * Spec §7 "The calls it makes", as data: every call whose method and path the spec gives, written
 * as the spec writes it (relative paths get the /api prefix, as spec §7 "Common to all calls"
 * says; `{name}` for a path parameter; a trailing slash where the spec shows one). `built` says
 * whether the backend answers it today; tests/api/contract.test.ts holds both halves to the truth,
 * so this list shows at a glance how much of §7 exists. Calls whose paths the spec does not give
 * (documents, most observability) are listed by area in `UNSPECIFIED_AREAS`.
 */
export type SpecCall = { method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; path: string; built: boolean; area: string }

const call = (area: string, built: boolean) => (method: SpecCall['method'], path: string): SpecCall => ({ method, path, built, area })

const auth = call('Auth', true)
const invitesBuilt = call('Invites and tenants', true)
const billing = call('Billing', true)
const storeBuilt = call('Billing', true)
const sync = call('Sync and projects', true)
const items = call('Items and photos', true)
const views = call('Saved views', true)
const settings = call('Settings', true)
const adminUsers = call('Admin users and devices', true)
const adminConfigBuilt = call('Admin configuration', true)
const observability = call('Observability and admin data', true)
const packages = call('Packages', true)
const telemetry = call('Telemetry', true)

export const SPEC_CALLS: SpecCall[] = [
  auth('POST', '/auth/login'),
  auth('POST', '/auth/admin/login'),
  auth('POST', '/auth/register-self'),
  auth('POST', '/auth/oidc/authorize'),
  auth('POST', '/auth/session/refresh'),
  auth('POST', '/auth/password/set'),
  auth('POST', '/auth/password/reset/request'),
  auth('POST', '/auth/password/reset/confirm'),
  auth('GET', '/auth/session'),
  auth('DELETE', '/auth/session'),
  auth('GET', '/auth/devices'),
  auth('POST', '/auth/devices/register'),
  auth('DELETE', '/auth/devices/{deviceId}'),

  invitesBuilt('GET', '/invite/{token}'),
  invitesBuilt('GET', '/invite/project/{token}'),
  invitesBuilt('POST', '/api/project-invites/claim'),
  invitesBuilt('POST', '/api/project-invites/codes/claim'),
  invitesBuilt('POST', '/api/projects/{projectId}/invites/create'),
  invitesBuilt('POST', '/api/invites/resend'),
  invitesBuilt('POST', '/api/invites/cancel'),
  invitesBuilt('POST', '/api/invites/claim'),
  invitesBuilt('POST', '/api/invites/register'),
  invitesBuilt('POST', '/api/tenants'),
  invitesBuilt('GET', '/api/tenants/{tenantId}/license'),
  invitesBuilt('PATCH', '/api/tenants/{tenantId}/license'),
  invitesBuilt('GET', '/api/tenants/{tenantId}/seats'),
  invitesBuilt('GET', '/api/tenants/{tenantId}/seats/invites'),
  invitesBuilt('POST', '/api/tenants/{tenantId}/seats/invite'),
  invitesBuilt('POST', '/api/tenants/{tenantId}/admins/invite'),
  invitesBuilt('POST', '/api/seats/{seatId}/revoke'),

  call('Billing', true)('GET', '/api/entitlements/me'),
  storeBuilt('POST', '/api/iap/link/start'),
  storeBuilt('POST', '/api/iap/link/complete'),
  storeBuilt('POST', '/api/iap/verify'),
  billing('POST', '/api/billing/checkout/session'),

  sync('GET', '/api/sync/changes'),
  sync('GET', '/api/sync/changes-mobile'),
  sync('GET', '/api/projects/'),

  items('GET', '/api/items/outstanding'),
  items('GET', '/api/items/{id}/responses'),
  items('POST', '/api/items/{id}/responses'),
  items('POST', '/api/items/{id}/confirm-close'),
  items('GET', '/api/items/{id}'),
  items('PATCH', '/api/items/{id}'),
  items('DELETE', '/api/items/{id}'),
  items('POST', '/api/reports/{reportId}/items'),
  items('GET', '/api/items/{id}/photos'),
  items('POST', '/api/items/{id}/uploads'),
  items('PUT', '/api/uploads/{sessionId}/chunk'),
  items('POST', '/api/uploads/{sessionId}/complete'),
  items('DELETE', '/api/uploads/{sessionId}'),
  items('POST', '/api/photos/edits'),
  items('PATCH', '/api/photos/{photoId}'),
  items('DELETE', '/api/photos/{photoId}'),
  items('GET', '/api/items/{id}/activity'),

  views('GET', '/api/views'),
  views('POST', '/api/views'),
  views('PUT', '/api/views/{id}'),
  views('DELETE', '/api/views/{id}'),

  settings('GET', '/api/settings'),
  settings('PATCH', '/api/settings/licensing'),
  settings('PATCH', '/api/settings/diagnostics'),
  settings('PATCH', '/api/settings/appearance'),
  settings('GET', '/api/settings/user'),
  settings('PATCH', '/api/settings/user'),
  settings('GET', '/api/settings/admin'),
  settings('PATCH', '/api/settings/admin'),
  settings('GET', '/api/user/notification-preferences/'),
  settings('PUT', '/api/user/notification-preferences/'),

  adminUsers('GET', '/api/admin/users'),
  adminUsers('GET', '/api/admin/users/{id}'),
  adminUsers('PATCH', '/api/admin/users/{id}'),
  adminUsers('DELETE', '/api/admin/users/{id}'),
  adminUsers('DELETE', '/api/admin/users/{id}/hard'),
  adminUsers('POST', '/api/admin/users/{id}/password'),
  adminUsers('POST', '/api/admin/users/{id}/password/set'),
  adminUsers('GET', '/api/admin/roles'),
  adminUsers('GET', '/api/admin/organisations'),
  adminUsers('POST', '/api/admin/organisations/{id}/members'),
  adminUsers('GET', '/api/admin/devices'),
  adminUsers('DELETE', '/api/admin/devices/{userId}/{deviceId}'),

  adminConfigBuilt('GET', '/api/admin/config/schema'),
  adminConfigBuilt('GET', '/api/admin/config/status'),
  adminConfigBuilt('GET', '/api/admin/config/{category}'),
  adminConfigBuilt('PUT', '/api/admin/config/{category}'),
  adminConfigBuilt('POST', '/api/admin/config/tests/{kind}'),
  adminConfigBuilt('GET', '/api/admin/retention/health'),

  observability('GET', '/api/diagnostics'),
  observability('GET', '/api/diagnostics/{id}'),
  observability('GET', '/api/admin/diagnostics-attempts'),
  observability('GET', '/api/logs/tail'),

  packages('GET', '/api/packages'),
  packages('GET', '/api/projects/{id}/packages'),
  packages('GET', '/api/admin/organisations/{id}/packages'),

  telemetry('POST', '/telemetry/events'),
  telemetry('POST', '/telemetry/public-events'),
  telemetry('POST', '/telemetry/public-errors'),
]

/** Areas of spec §7 whose calls the spec names without exact paths (they get paths when built). */
export const UNSPECIFIED_AREAS = [
  'Observability: diagnostics analysis, schema incidents, frontend errors, telemetry stats, audit and exports, CSP reports, upload sessions and stats, e-mail templates',
  'Documents: tree, detail, search, metadata, permissions, folders, revisions, workflows, sets, transmittals',
  'Realtime: the hub at /hub/realtime (WebSocket, not an HTTP operation)',
]

/** Business constants of spec §9, named once. */

/** Spec §9 "Client version". */
export const CLIENT_VERSION = '0.1.0'
/** Spec §9 "Contract version". */
export const CONTRACT_VERSION = '0.3.0'
/** Spec §9 "Retry back-off for network or 429": 300, 1000, 3000 ms; at most 3. */
export const RETRY_DELAYS_MS = [300, 1000, 3000] as const
/** Spec §9 "Session refresh throttle": once per 15 s. */
export const SESSION_REFRESH_THROTTLE_MS = 15_000
/** Spec §9 "Default admin list page size". */
export const ADMIN_PAGE_SIZE = 50
/** Spec §9 "Sync retry delay": starts at 1 s, doubles, max 30 s. */
export const SYNC_RETRY_INITIAL_MS = 1_000
export const SYNC_RETRY_MAX_MS = 30_000
/** Spec §9 "Session expiry fallback": 30 minutes. */
export const SESSION_EXPIRY_FALLBACK_MS = 30 * 60_000
/** Spec §9 "Demo session": one hour. */
export const DEMO_SESSION_MS = 60 * 60_000
/** Spec §9 "In-memory audit log". */
export const AUDIT_LOG_LIMIT = 200
/** Spec §9 "Realtime reconnect delays": 0, 2, 5, 10 s. */
export const REALTIME_RECONNECT_DELAYS_MS = [0, 2_000, 5_000, 10_000] as const
/** Spec §9 "Admin sidebar width". */
export const ADMIN_SIDEBAR_WIDTH = 260
export const ADMIN_SIDEBAR_COLLAPSED_WIDTH = 72
/** Spec §9 "Telemetry batch". */
export const TELEMETRY_FLUSH_EVENTS = 40
export const TELEMETRY_FLUSH_MS = 5_000
/** Spec §9 "Error batch". */
export const ERROR_FLUSH_EVENTS = 20
export const ERROR_FLUSH_MS = 3_000
export const ERROR_MAX_PER_SEND = 50
/** Spec §9 "Stack trace length". */
export const STACK_TRACE_MAX = 4_000
/** Spec §9 "Visitor cookie kr-vis": 7 days, path /, samesite lax. */
export const VISITOR_COOKIE = 'kr-vis'
export const VISITOR_COOKIE_MAX_AGE_S = 7 * 24 * 60 * 60
/** Spec §9 "Cached query data": kept 60 s after the last subscriber leaves. */
export const QUERY_CACHE_MS = 60_000
/** Spec §5: the stored client id must be at least 8 characters; generated ids are at most 36. */
export const CLIENT_ID_MIN_LENGTH = 8
export const CLIENT_ID_MAX_LENGTH = 36

/** Header names of spec §7 "Common to all calls". */
export const HEADERS = {
  clientId: 'X-Client-Id',
  clientVersion: 'X-Client-Version',
  clientOs: 'X-Client-OS',
  requestedWith: 'X-Requested-With',
  csrf: 'X-CSRF-Token',
  idempotencyKey: 'Idempotency-Key',
  correlationId: 'X-Correlation-Id',
  /** Sync calls from a registered device (POST /auth/devices/register): a revoked one is refused. */
  deviceId: 'X-Device-Id',
} as const

/** Error codes the client acts on (spec §8 "Behaviour"). */
export const ERROR_CODES = {
  userBlocked: 'KR_USER_BLOCKED',
  userNotActive: 'KR_USER_NOT_ACTIVE',
  tenantPrefix: 'KR-TENANT-',
  syncCursorStale: 'KR_SYNC_CURSOR_STALE',
  mfaRequired: 'KR_MFA_REQUIRED',
  /** PATCH of an item with an expectedRevision that someone else's change has passed. */
  editConflict: 'KR_EDIT_CONFLICT',
  /** A sync call from a device its user revoked: the client deletes its local copy and stops syncing. */
  deviceRevoked: 'KR_DEVICE_REVOKED',
} as const

/** Cookie names shared by the web app and the backend (DESIGN.md "Identity and sessions"). */
export const COOKIES = {
  /** The readable CSRF double-submit cookie; `__Host-` prefixed outside development. */
  csrf: 'sp_csrf',
  csrfHost: '__Host-sp_csrf',
  /** The client id of server-side calls (spec §5), readable so islands can share it. */
  clientId: 'sp_cid',
} as const
/** The hidden form field that carries the CSRF token in HTML forms. */
export const CSRF_FORM_FIELD = 'csrf'
/** Where the browser keeps its client id (spec §5). */
export const CLIENT_ID_STORAGE_KEY = 'sp.clientId'
/** The server-side client id cookie lives one year. */
export const CLIENT_ID_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60
/** Spec §7 "Telemetry": where the browser sends telemetry and frontend errors. */
export const TELEMETRY_PATHS = {
  events: '/telemetry/events',
  publicEvents: '/telemetry/public-events',
  publicErrors: '/telemetry/public-errors',
} as const
/** Spec §8 "Behaviour" re-queue (bound from issue 15): at most 500 telemetry events wait; the oldest go first. */
export const TELEMETRY_QUEUE_MAX = 500
/** Issue 15 flood guard: one error (message and stack) is sent at most 5 times per page life, then only counted. */
export const ERROR_REPEAT_MAX = 5
/** Ours, not the spec's: errors waiting while a send is in flight; later ones are only counted. */
export const ERROR_QUEUE_MAX = 500

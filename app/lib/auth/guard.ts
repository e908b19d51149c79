import { deriveRole } from './role'
import type { Session } from './session'

/** Spec §4 "Route guard" modes. */
export type GuardMode = 'any' | 'user' | 'admin'

export type GuardResult =
  | { outcome: 'allow' }
  | { outcome: 'login'; redirectTo: string }
  | { outcome: 'forbidden'; redirectTo: string }
  | { outcome: 'step-up'; redirectTo: string }

export const DEFAULT_REDIRECT_PATH = '/dashboard'

/**
 * Spec §4: unauthenticated (no session, or one still waiting for its second factor) goes to login
 * keeping the wanted path; admin mode passes an admin-capable session or one of kind admin. An
 * administrator signed in through the user login is sent to the admin login (step-up) rather than
 * told they have no access; anyone else signed in goes to the forbidden page.
 * `path` is the wanted pathname plus search.
 */
export function evaluateGuard(input: { mode: GuardMode; session: Session | null | undefined; path: string }): GuardResult {
  const { mode, session } = input
  const wanted = safeRedirectPath(input.path)
  if (!session || session.requiresMfa) return { outcome: 'login', redirectTo: loginPath(wanted) }
  if (mode !== 'admin') return { outcome: 'allow' }
  if (session.adminUiAllowed || session.kind === 'admin') return { outcome: 'allow' }
  if (deriveRole(session) === 'admin') {
    return { outcome: 'step-up', redirectTo: `/auth/login?mode=admin&redirectTo=${encodeURIComponent(wanted)}` }
  }
  return { outcome: 'forbidden', redirectTo: `/forbidden/admin?from=${encodeURIComponent(wanted)}` }
}

export function loginPath(wanted: string): string {
  return `/auth/login?redirectTo=${encodeURIComponent(safeRedirectPath(wanted))}`
}

const PROBE_ORIGIN = 'http://portal.invalid'

/**
 * A redirect target from user input: a same-site path starting with a single '/'. Anything else
 * (`//host`, `/\host`, a scheme, control characters the URL parser drops) falls back to the
 * dashboard, so a sign-in link can never send the user to another site.
 *
 * The result is the path as the URL parser writes it: percent-encoded, pure ASCII, so it can go
 * into a Location header (`/日本` becomes `/%E6%97%A5%E6%9C%AC`; a header with characters above
 * U+00FF throws, which made a crafted sign-in link answer 500). Already-encoded input is kept.
 */
export function safeRedirectPath(value: unknown, fallback: string = DEFAULT_REDIRECT_PATH): string {
  if (typeof value !== 'string' || !value.startsWith('/')) return fallback
  if (value.startsWith('//') || value.startsWith('/\\')) return fallback
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return fallback
  let url: URL
  try {
    url = new URL(value, PROBE_ORIGIN)
  } catch {
    return fallback
  }
  if (url.origin !== PROBE_ORIGIN) return fallback
  const path = url.pathname + url.search + url.hash
  // Dot segments can collapse into a leading '//' ('/.//host'): a browser reads that as another host.
  if (path.startsWith('//') || path.startsWith('/\\')) return fallback
  return path
}

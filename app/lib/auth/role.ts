import type { Session, SessionKind } from './session'

export type Role = 'admin' | 'user'

/** Spec §4 "Derived role": a role name containing admin, administrator or owner, in any case. */
const ADMIN_ROLE = /admin|administrator|owner/i

/** Spec §4: admin by role name, otherwise the session kind, otherwise user. */
export function deriveRole(session: Partial<Pick<Session, 'roles' | 'kind'>> | null | undefined): Role {
  if (!session) return 'user'
  const roles = Array.isArray(session.roles) ? session.roles : []
  if (roles.some((role) => typeof role === 'string' && ADMIN_ROLE.test(role))) return 'admin'
  return isSessionKind(session.kind) ? session.kind : 'user'
}

function isSessionKind(value: unknown): value is SessionKind {
  return value === 'admin' || value === 'user'
}

/** Spec §3 "Role keys". */
export const ROLE_KEY_LABELS = {
  admin: 'Administrator',
  'read-write': 'Read & Write',
  'read-only': 'Read Only',
} as const

export type RoleKey = keyof typeof ROLE_KEY_LABELS

/** The label of a membership role key; an unknown key shows as itself rather than as nothing. */
export function roleKeyLabel(key: string): string {
  return Object.hasOwn(ROLE_KEY_LABELS, key) ? ROLE_KEY_LABELS[key as RoleKey] : key
}

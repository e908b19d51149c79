/** Membership role keys (spec §3 "Role keys") and the role names a session carries. */
export const ROLE_KEYS = ['admin', 'read-write', 'read-only'] as const
export type RoleKey = (typeof ROLE_KEYS)[number]

const ROLE_NAMES: Record<RoleKey, string> = {
  admin: 'Administrator',
  'read-write': 'ReadWrite',
  'read-only': 'ReadOnly',
}

/** Every member is a "User" (spec §3 default); the membership adds its own role name. */
export function rolesFor(roleKey: string): string[] {
  const name = ROLE_NAMES[roleKey as RoleKey]
  return name ? ['User', name] : ['User']
}

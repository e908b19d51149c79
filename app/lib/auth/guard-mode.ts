/**
 * Which guard of spec §4 a path gets: public screens (sign-in, invites), the Administration area
 * and the admin settings tab (admin), and every other screen (any signed-in user).
 */
export type GuardModeOrPublic = 'public' | 'any' | 'user' | 'admin'

const PUBLIC = [/^\/auth\//, /^\/invite\//, /^\/shared\/transmittals\//]
const ADMIN = [/^\/admin(\/|$)/, /^\/settings\/admin\/?$/]

export function guardModeFor(pathname: string): GuardModeOrPublic {
  if (PUBLIC.some((p) => p.test(pathname))) return 'public'
  if (ADMIN.some((p) => p.test(pathname))) return 'admin'
  return 'any'
}

/**
 * Administration › Users (spec §3 "Admin user", "Role keys"; docs/admin/users.md): the shapes the
 * backend answers and the screens read, and how role keys and statuses are shown.
 */

export const ADMIN_ROLE_KEYS = ['admin', 'read-write', 'read-only'] as const
export type AdminRoleKey = (typeof ADMIN_ROLE_KEYS)[number]

/** Spec §3 "Role keys": how each key is shown. */
export const ROLE_NAMES: Record<AdminRoleKey, string> = {
  admin: 'Administrator',
  'read-write': 'Read & Write',
  'read-only': 'Read Only',
}

/** The roles a member can be given, for a select (the filter, "Add member", a member's role). */
export const ROLE_OPTIONS = ADMIN_ROLE_KEYS.map((key) => ({ value: key, label: ROLE_NAMES[key] }))

export function roleName(key: string): string {
  return ROLE_NAMES[key as AdminRoleKey] ?? key
}

/**
 * A person's status in this organisation: their membership's (Active, Suspended, Invited), unless
 * the account itself is blocked (Blocked) or was hard-deleted (Deleted).
 */
export const ADMIN_USER_STATUSES = ['Active', 'Suspended', 'Invited', 'Blocked', 'Deleted'] as const
export type AdminUserStatus = (typeof ADMIN_USER_STATUSES)[number]
/** The statuses the list filters on (those of a membership). */
export const MEMBERSHIP_STATUSES = ['Active', 'Suspended', 'Invited'] as const
export type MembershipStatus = (typeof MEMBERSHIP_STATUSES)[number]

export type AdminMembership = {
  organisationId: string
  organisationName: string
  organisationSlug: string
  roleKey: AdminRoleKey
  /** Active, Suspended or Invited. */
  statusDisplayName: MembershipStatus
  isDefault: boolean
  /** Opens the portal in that organisation: its sign-in with the organisation chosen. */
  namespacedUrl: string
}

export type AdminUser = {
  id: string
  displayName: string
  firstName: string | null
  lastName: string | null
  position: string | null
  email: string
  status: AdminUserStatus
  isMfaEnforced: boolean
  /** Bumped by every change of the person or of their membership: send it back as expectedRevision. */
  revision: number
  createdAtUtc: string
  updatedAtUtc: string
  /**
   * This organisation's membership first; in the detail also the person's memberships of other
   * organisations the calling administrator administers too (never any other).
   */
  memberships: AdminMembership[]
}

export type AdminRole = { key: AdminRoleKey; name: string }

export type AdminOrganisation = { id: string; name: string; slug: string; memberCount: number; isCurrent: boolean }

/** What a hard delete did: the person was anonymised (tombstone) or only left this organisation. */
export type HardDeleteResult = { id: string; outcome: 'anonymised' | 'removed-from-organisation' }

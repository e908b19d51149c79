/** Spec §3: the flat user-session response of GET /auth/session. */
export type Session = {
  userId: string
  displayName: string
  email: string
  roles: string[]
  tenantId: string
  tenantName: string
  tenantSlug: string
  featureFlags: Record<string, unknown>
  syncCursor: { value: string; expiresAtUtc: string } | null
  issuedAtUtc: string
  sessionExpiresAtUtc: string
  correlationId: string
  kind: SessionKind
  adminUiAllowed: boolean
  requiresMfa: boolean
  mfaEnrollment: boolean
}

export type SessionKind = 'admin' | 'user'

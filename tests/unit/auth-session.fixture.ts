import type { Session } from '~/lib/auth/session'

/** A signed-in regular user; tests override what they are about. */
export function session(overrides: Partial<Session> = {}): Session {
  return {
    userId: 'u-1',
    displayName: 'Uma User',
    email: 'uma@example.test',
    roles: ['User'],
    tenantId: 't-1',
    tenantName: 'Demo',
    tenantSlug: 'demo',
    featureFlags: {},
    syncCursor: null,
    issuedAtUtc: '2025-01-01T00:00:00Z',
    sessionExpiresAtUtc: '2025-01-01T00:30:00Z',
    correlationId: 'cid-s',
    kind: 'user',
    adminUiAllowed: false,
    requiresMfa: false,
    mfaEnrollment: false,
    ...overrides,
  }
}

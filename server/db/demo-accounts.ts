/**
 * Demo accounts, created on first start when SEED is on (the default; server/db/seed.ts). They are
 * public knowledge (the README lists them): switch SEED off for any real deployment. A module of
 * their own, so the browser tests and scripts that sign in as them do not load the seed's code.
 */
export const DEMO = {
  tenant: { name: 'Demo Construction', slug: 'demo' },
  otherTenant: { name: 'Northwind Builders', slug: 'northwind' },
  admin: { email: 'admin@demo.example.com', password: 'demo-admin-password', displayName: 'Alex Admin' },
  user: { email: 'user@demo.example.com', password: 'demo-user-password', displayName: 'Sam Site' },
  otherUser: { email: 'user@northwind.example.com', password: 'northwind-user-password', displayName: 'Nico North' },
  /** The admin's TOTP secret (Base32), to add to an authenticator app. */
  adminTotpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
} as const

import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { tenants, users } from './schema'

/**
 * Sign-in through an identity provider (issue 16): OpenID Connect flows in progress and the identities linked to accounts.
 *
 * Neither table is tenant-owned: a flow exists before anyone is signed in (it names the
 * organisation whose provider it uses), and one person's identity at a provider links to their
 * global account, whichever organisations they belong to. Both are read only by the sign-in code
 * (server/domain/oidc/*), never through a member's tenant transaction.
 */

/**
 * One authorization request (spec §7 POST /auth/oidc/authorize): what the callback must check.
 * Only hashes of the state and of the browser binding are kept, so a leaked row cannot finish a
 * sign-in. A row lives 10 minutes and is used once (`used_at`); a job-free purge removes old rows
 * whenever a new flow starts.
 */
export const oidcFlows = pgTable(
  'oidc_flows',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** SHA-256 of the `state` sent to the provider: how the callback finds its flow. */
    stateHash: text('state_hash').notNull(),
    /** SHA-256 of the random value in this browser's HttpOnly flow cookie (login CSRF defence). */
    browserHash: text('browser_hash').notNull(),
    nonce: text('nonce').notNull(),
    /** PKCE (RFC 7636) verifier, sent only to the token endpoint. */
    codeVerifier: text('code_verifier').notNull(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    /** The issuer the flow was started with: a configuration changed meanwhile fails the flow. */
    issuer: text('issuer').notNull(),
    /** A same-site path (safeRedirectPath) to open once signed in. */
    redirectTo: text('redirect_to').notNull(),
    /** The correlation id of the authorize call (spec §4 "redirecting"), logged with every outcome. */
    correlationId: text('correlation_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('oidc_flows_state_idx').on(t.stateHash), index('oidc_flows_expires_idx').on(t.expiresAt)],
)

/**
 * A person's identity at a provider (issuer + subject, OIDC Core §2: together unique and stable)
 * linked to their account. Made on the first sign-in through the provider (docs/identity-provider.md
 * "Linking"); later sign-ins find the account by it, whatever the e-mail address says then.
 */
export const userIdentities = pgTable(
  'user_identities',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The organisation whose provider made the link (for the audit trail and the admin's view). */
    tenantId: uuid('tenant_id').references(() => tenants.id, { onDelete: 'set null' }),
    /** The address the provider vouched for when the link was made. */
    email: text('email').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    lastSignInAt: timestamp('last_sign_in_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('user_identities_issuer_subject_idx').on(t.issuer, t.subject), index('user_identities_user_idx').on(t.userId)],
)

/** No table here is tenant-owned (see above), so none needs forced row-level security. */
export const oidcTenantTables: string[] = []

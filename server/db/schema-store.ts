import { boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { tenantPolicy, tenantRef, timestamps, users } from './schema'

/**
 * Store subscriptions (issue 16, docs/store-subscriptions.md): link codes an administrator makes on
 * /settings/link, and the subscriptions bought in a mobile app store that they linked to the
 * organisation.
 */

/**
 * A short code (spec §7 POST /api/iap/link/start) that the mobile app's user types to link their
 * purchase. Only its HMAC is kept; it works once, for 15 minutes, in this organisation only.
 */
export const storeLinkCodes = pgTable(
  'store_link_codes',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    /** HMAC-SHA256 of the normalised code under the server's secret (base64url). */
    codeHash: text('code_hash').notNull(),
    createdBy: uuid('created_by')
      .notNull()
      .references(() => users.id),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** Set when the code linked a subscription, or when a newer code replaced it. */
    usedAt: timestamp('used_at', { withTimezone: true }),
    usedBy: uuid('used_by').references(() => users.id),
    subscriptionId: uuid('subscription_id'),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] }), uniqueIndex('store_link_codes_hash_idx').on(t.tenantId, t.codeHash), tenantPolicy('store_link_codes')],
).enableRLS()

/**
 * A store subscription linked to the organisation. `subscription_key` names it in its store (Apple:
 * the original transaction id; Google: the SHA-256 of the purchase token). Its unique index spans
 * every organisation on purpose: a subscription belongs to one organisation at most, and the index
 * refuses a second one even though row-level security hides the first one's row.
 */
export const storeSubscriptions = pgTable(
  'store_subscriptions',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    /** apple | google */
    store: text('store').notNull(),
    subscriptionKey: text('subscription_key').notNull(),
    /** What the store's API is asked with: Apple's original transaction id, Google's purchase token. */
    storeReference: text('store_reference').notNull(),
    productId: text('product_id').notNull(),
    /** Apple: Production | Sandbox; Google: Production | Test (a licence tester's purchase). */
    environment: text('environment').notNull(),
    /** The store's state in our words (server/domain/store/subscription-state.ts). */
    state: text('state').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    autoRenew: boolean('auto_renew'),
    /** The newest transaction (Apple) or order (Google) the store reported. */
    latestTransactionId: text('latest_transaction_id'),
    plan: text('plan').notNull(),
    seats: integer('seats').notNull(),
    linkedBy: uuid('linked_by')
      .notNull()
      .references(() => users.id),
    linkedAt: timestamp('linked_at', { withTimezone: true }).notNull(),
    lastVerifiedAt: timestamp('last_verified_at', { withTimezone: true }).notNull(),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('store_subscriptions_key_idx').on(t.store, t.subscriptionKey),
    index('store_subscriptions_tenant_linked_idx').on(t.tenantId, t.linkedAt.desc()),
    tenantPolicy('store_subscriptions'),
  ],
).enableRLS()

export const storeTenantTables: string[] = ['store_link_codes', 'store_subscriptions']

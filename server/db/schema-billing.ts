import { index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { tenantPolicy, tenantRef, timestamps, users } from './schema'

/**
 * Billing (issue 16, docs/billing.md): the web checkouts an organisation started and the payment
 * provider's webhook events we have processed.
 */

/**
 * One checkout an administrator started: what they asked for (plan, seats) and where it stands.
 * The row is written before the provider is called (so its id is the provider's idempotency key)
 * and completed only by the provider's signed webhook, never by the return to the success page.
 */
export const billingCheckouts = pgTable(
  'billing_checkouts',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    /** test | stripe: the provider that holds the session. */
    provider: text('provider').notNull(),
    /** The provider's checkout session (Stripe: cs_…); null until the provider answered. */
    providerSessionId: text('provider_session_id'),
    /** A key of PLANS (app/lib/licensing/plans.ts). */
    plan: text('plan').notNull(),
    seats: integer('seats').notNull(),
    /** open | completed | expired | cancelled | failed (the provider refused or could not be reached) */
    status: text('status').notNull(),
    /** The provider's hosted payment page. */
    url: text('url'),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    /** The provider's subscription the completed checkout started (Stripe: sub_…). */
    subscriptionReference: text('subscription_reference'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('billing_checkouts_provider_session_idx').on(t.provider, t.providerSessionId),
    index('billing_checkouts_tenant_created_idx').on(t.tenantId, t.createdAt),
    tenantPolicy('billing_checkouts'),
  ],
).enableRLS()

/**
 * Every webhook event processed, by the provider's event id: a replay of one finds its row and
 * changes nothing. Not tenant-owned (an event may name no organisation, or one that is gone), so
 * no row-level security; it holds no more than ids, the type and what came of it.
 */
export const billingWebhookEvents = pgTable(
  'billing_webhook_events',
  {
    provider: text('provider').notNull(),
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    /** The organisation the event named, if any (not a foreign key: events outlive organisations). */
    tenantId: uuid('tenant_id'),
    /** What processing it did: activated | updated | ignored | no-matching-checkout | … */
    outcome: text('outcome').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.eventId] }), index('billing_webhook_events_received_idx').on(t.receivedAt)],
)

export const billingTenantTables: string[] = ['billing_checkouts']
